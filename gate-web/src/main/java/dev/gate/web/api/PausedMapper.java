package dev.gate.web.api;

import dev.gate.client.GatePausedException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** The database is unavailable: 503 with Retry-After, and a title that says calls are paused. */
@Provider
public class PausedMapper implements ExceptionMapper<GatePausedException> {

    @Override
    public Response toResponse(GatePausedException e) {
        return Response.status(Response.Status.SERVICE_UNAVAILABLE)
                .header("Retry-After", "1")
                .type(Problem.MEDIA_TYPE)
                .entity(new Problem("urn:gate:problem:paused", "Calls are paused", 503, e.getMessage()))
                .build();
    }
}
