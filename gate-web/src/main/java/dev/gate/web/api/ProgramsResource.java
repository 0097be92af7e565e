package dev.gate.web.api;

import dev.gate.api.GateException;
import dev.gate.app.Operations;
import dev.gate.app.Programs;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import org.eclipse.microprofile.openapi.annotations.Operation;

/** {@code /gate/api/v1/programs}: the calling program as a whole ({@code self}), and an operator's drain of one. */
@Path("/programs")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class ProgramsResource {

    @EJB
    Programs programs;

    @EJB
    Operations operations;

    @Context
    SecurityContext security;

    /** The program's heartbeat: renews every one of its waiting calls in one statement. */
    @Operation(summary = "The program's heartbeat: renew every one of its waiting calls; answers {renewed}")
    @POST
    @Path("self/lease")
    @RolesAllowed("caller")
    public Response lease() throws GateException {
        int renewed = programs.renewAll(security.getUserPrincipal().getName());
        return Response.ok(JsonBuilders.object().add("renewed", renewed).build().toString()).build();
    }

    /** An operator drains a program: every waiting call it submitted leaves the line (of one limit, when given). */
    @Operation(summary = "Drain a program (operator): cancel every waiting call it submitted, of one limit with ?limit=; answers {cancelled}")
    @POST
    @Path("{program}/drain")
    @RolesAllowed("operator")
    public Response drain(@PathParam("program") String program, @QueryParam("limit") String limit)
            throws GateException {
        int cancelled = operations.drain(program, limit == null || limit.isBlank() ? null : limit,
                security.getUserPrincipal().getName());
        return Response.ok(JsonBuilders.object().add("cancelled", cancelled).build().toString()).build();
    }
}
