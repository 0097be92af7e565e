package dev.gate.web.api;

import dev.gate.client.GatePausedException;
import dev.gate.ejb.GateStatus;
import dev.gate.store.LimitStatus;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.List;

/** {@code GET /gate/api/v1/limits}: every limit with its live numbers, as on the status page. */
@Path("/limits")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class LimitsResource {

    @EJB
    GateStatus status;

    @GET
    public List<LimitStatus> limits() throws GatePausedException {
        return status.limits();
    }
}
