package dev.gate.demo.vendor;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.time.Duration;
import java.util.logging.Logger;

/**
 * The demo vendor's API: a day of history, a store's snapshot, a quote (each allowed or 429 with Retry-After),
 * its counters, and its rule (set by the demo or a test; setting it starts the counters again).
 */
@Path("/")
@ApplicationScoped
@Produces(MediaType.APPLICATION_JSON)
public class VendorResource {

    private static final Logger LOG = Logger.getLogger(VendorResource.class.getName());

    /** The last requests received, for the log line of a 429: which requests filled its window. */
    private final RecentRequests recent = new RecentRequests(12);

    private volatile VendorCounters counters = new VendorCounters(
            Integer.getInteger("demo.vendor.calls", 10), Duration.ofSeconds(Long.getLong("demo.vendor.window", 1)));

    @GET
    @Path("history/{symbol}/{day}")
    public Response history(@PathParam("symbol") String symbol, @PathParam("day") String day) {
        return answer("history/" + symbol + "/" + day, Json.createObjectBuilder().add("symbol", symbol)
                .add("day", day).add("close", 100 + Math.floorMod((symbol + day).hashCode(), 900)).build());
    }

    @GET
    @Path("snapshot/{store}")
    public Response snapshot(@PathParam("store") String store) {
        return answer("snapshot/" + store, Json.createObjectBuilder().add("store", store)
                .add("orders", Math.floorMod(System.nanoTime(), 50)).build());
    }

    @GET
    @Path("quote/{symbol}")
    public Response quote(@PathParam("symbol") String symbol) {
        return answer("quote/" + symbol, Json.createObjectBuilder().add("symbol", symbol)
                .add("price", 100 + Math.floorMod(System.nanoTime(), 900)).build());
    }

    @GET
    @Path("counters")
    public JsonObject counters() {
        VendorCounters c = counters;
        return Json.createObjectBuilder().add("calls", c.calls()).add("windowSeconds", c.window().toSeconds())
                .add("requests", c.requests()).add("refused", c.refused()).add("worstWindow", c.worstWindow())
                .add("historyAnswered", c.answered("history/")).add("historyAnsweredTwice", c.answeredTwice("history/"))
                .build();
    }

    /** A new rule, e.g. {@code PUT /rule?calls=20&windowSeconds=1}; the counters start again. */
    @PUT
    @Path("rule")
    public JsonObject rule(@QueryParam("calls") int calls, @QueryParam("windowSeconds") int windowSeconds) {
        if (calls < 1 || windowSeconds < 1) {
            throw new jakarta.ws.rs.BadRequestException("calls and windowSeconds must be at least 1");
        }
        counters = new VendorCounters(calls, Duration.ofSeconds(windowSeconds));
        LOG.info("demo vendor: " + calls + " calls per " + windowSeconds + " s; counters reset");
        return counters();
    }

    private Response answer(String path, JsonObject body) {
        long now = System.nanoTime();
        VendorWindow.Verdict v = counters.admit(path, now);
        String before = recent.received(path, now);
        if (!v.accepted()) {
            LOG.info("demo vendor: 429 for " + path + "; the requests before it (ms before it): " + before);
            Response.ResponseBuilder refused = Response.status(429).header("Retry-After", v.retryAfterSeconds())
                    .entity(Json.createObjectBuilder().add("error", "rate limit exceeded").build());
            v.headers().forEach(refused::header);
            return refused.build();
        }
        Response.ResponseBuilder ok = Response.ok(body);
        v.headers().forEach(ok::header); // its own count, as vendors say it
        return ok.build();
    }
}
