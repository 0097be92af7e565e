package dev.gate.it.gated;

import dev.gate.api.CallClass;
import dev.gate.api.Gated;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.Response;

import java.io.IOException;

/** An application's vendor calls, each through the gate by {@link Gated} alone: no permit in sight. */
@ApplicationScoped
public class GatedVendor {

    /** The vendor says slow down. */
    @Gated(limit = "it-gated-429", callClass = CallClass.SCHEDULED)
    public Response rateLimited() {
        return Response.status(429).header("Retry-After", "7").build();
    }

    /** The vendor call never happened: the connection broke first. */
    @Gated(limit = "it-gated-io")
    public String broken() throws IOException {
        throw new IOException("connection refused");
    }

    /** A plain answer, one call per store at a time (the concurrency key from the first parameter). */
    @Gated(limit = "it-gated-ok", callClass = CallClass.BACKFILL, concurrencyKeyParameter = 0)
    public String fetch(String store) {
        return "history of " + store;
    }
}
