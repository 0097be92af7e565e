package dev.gate.web.api;

import dev.gate.app.Operations;
import dev.gate.api.GateException;
import dev.gate.api.OperatorAction;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;

/** {@code /gate/api/v1/actions}: what operators did to the line recently, and who. */
@Path("/actions")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class ActionsResource {

    @EJB
    Operations operations;

    @Operation(summary = "The recent operator actions, newest first: {actions: [{at, actor, action, target, detail}]}")
    @GET
    @RolesAllowed({"operator", "viewer"})
    public Response recent() throws GateException {
        JsonArrayBuilder actions = JsonBuilders.array();
        for (OperatorAction a : operations.recent()) {
            JsonObjectBuilder b = JsonBuilders.object().add("id", a.getId()).add("at", a.getAt().toString())
                    .add("actor", a.getActor()).add("action", a.getAction()).add("target", a.getTarget());
            if (a.getDetail() != null) {
                b.add("detail", a.getDetail());
            }
            actions.add(b);
        }
        return Response.ok(JsonBuilders.object().add("actions", actions).build().toString()).build();
    }
}
