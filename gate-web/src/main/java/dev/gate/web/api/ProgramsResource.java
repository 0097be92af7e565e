package dev.gate.web.api;

import dev.gate.client.GateException;
import dev.gate.app.Programs;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import org.eclipse.microprofile.openapi.annotations.Operation;

/** {@code /gate/api/v1/programs/self}: the calling program as a whole. */
@Path("/programs/self")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class ProgramsResource {

    @EJB
    Programs programs;

    @Context
    SecurityContext security;

    /** The program's heartbeat: renews every one of its waiting calls in one statement. */
    @Operation(summary = "The program's heartbeat: renew every one of its waiting calls; answers {renewed}")
    @POST
    @Path("lease")
    @RolesAllowed("caller")
    public Response lease() throws GateException {
        int renewed = programs.renewAll(security.getUserPrincipal().getName());
        return Response.ok(JsonBuilders.object().add("renewed", renewed).build().toString()).build();
    }
}
