package dev.gate.demo.web;

import dev.gate.api.CallClass;
import dev.gate.api.Gate;
import dev.gate.api.GateException;
import dev.gate.api.Permit;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RunAs;
import jakarta.ejb.EJB;
import jakarta.ejb.Stateless;
import jakarta.json.Json;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * {@code GET /demo-web/quote/{symbol}[?limit=]}: a person asks for a quote; the vendor is called INTERACTIVE through
 * the gate (limit {@code demo-vendor} unless given) and the answer says how long the call waited in the line.
 */
@Path("quote/{symbol}")
@Stateless
@PermitAll // the demo's visitors need no account here ...
@RunAs("caller") // ... but the gate takes only callers: this resource joins the line as one (program "ejb")
@Produces(MediaType.APPLICATION_JSON)
public class QuotePage {

    static final String VENDOR = System.getProperty("demo.vendor.url", "http://127.0.0.1:8080/demo-vendor");

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @EJB(lookup = Gate.JNDI_NAME)
    Gate gate;

    @GET
    public Response quote(@PathParam("symbol") String symbol, @QueryParam("limit") String limit) throws Exception {
        long t0 = System.nanoTime();
        Permit permit;
        try {
            permit = gate.acquire(limit == null ? "demo-vendor" : limit, CallClass.INTERACTIVE, Duration.ofSeconds(10));
        } catch (GateException e) {
            return Response.status(503).entity(Json.createObjectBuilder().add("error", e.getMessage()).build())
                    .build();
        }
        long waitedMicros = (System.nanoTime() - t0) / 1_000;
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(VENDOR + "/quote/"
                + URLEncoder.encode(symbol, StandardCharsets.UTF_8))).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        Duration retryAfter = r.headers().firstValue("Retry-After").filter(v -> v.matches("\\d{1,6}"))
                .map(v -> Duration.ofSeconds(Long.parseLong(v))).orElse(null);
        gate.complete(permit, r.statusCode(), retryAfter);
        return Response.status(r.statusCode() == 200 ? 200 : 502).entity(Json.createObjectBuilder()
                .add("symbol", symbol).add("vendorStatus", r.statusCode()).add("waitedMicros", waitedMicros)
                .add("callId", permit.callId()).build()).build();
    }
}
