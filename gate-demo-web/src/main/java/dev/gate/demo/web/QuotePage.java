package dev.gate.demo.web;

import dev.gate.api.GatedClientFilter;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RunAs;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.rest.client.inject.RestClient;

/**
 * {@code GET /demo-web/quote/{symbol}}: a person asks for a quote; the vendor is called through the gate by the Rest
 * Client's provider ({@link QuoteGate}: INTERACTIVE, limit {@code demo-vendor}), with no permit here, and the answer
 * says how long the request waited in the line (the filter's {@code Gate-Waited-Ms}).
 */
@Path("quote/{symbol}")
@Stateless
@PermitAll // the demo's visitors need no account here ...
@RunAs("caller") // ... but the gate takes only callers: this resource joins the line as one (program "ejb")
@Produces(MediaType.APPLICATION_JSON)
public class QuotePage {

    @Inject
    @RestClient
    DemoVendor vendor;

    @GET
    public Response quote(@PathParam("symbol") String symbol) {
        try (Response r = answer(symbol)) {
            String waitedMs = r.getHeaderString(GatedClientFilter.WAITED_HEADER);
            String callId = r.getHeaderString(GatedClientFilter.CALL_ID_HEADER);
            return Response.status(r.getStatus() == 200 ? 200 : 502).entity(Json.createObjectBuilder()
                    .add("symbol", symbol).add("vendorStatus", r.getStatus())
                    .add("waitedMicros", waitedMs == null ? -1 : Long.parseLong(waitedMs) * 1000)
                    .add("callId", callId == null ? -1 : Long.parseLong(callId)).build()).build();
        } catch (ProcessingException e) { // the gate said no (paused, busy, not in time): the vendor was not called
            return Response.status(503).entity(Json.createObjectBuilder().add("error", String.valueOf(
                    e.getCause() == null ? e.getMessage() : e.getCause().getMessage())).build()).build();
        }
    }

    private Response answer(String symbol) {
        try {
            return vendor.quote(symbol);
        } catch (WebApplicationException refused) { // the Rest Client's way of answering a 4xx or 5xx
            return refused.getResponse();
        }
    }
}
