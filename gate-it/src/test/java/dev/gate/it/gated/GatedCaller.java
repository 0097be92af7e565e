package dev.gate.it.gated;

import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RunAs;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.rest.client.RestClientBuilder;

import java.io.IOException;
import java.net.URI;

/** The application's component that runs as a caller of the gate (its principal is the call's program). */
@Stateless
@PermitAll // its own callers are the application's; the gate checks the role it runs as
@RunAs("caller")
public class GatedCaller {

    @Inject
    GatedVendor vendor;

    public Response rateLimited() {
        return vendor.rateLimited();
    }

    public String broken() throws IOException {
        return vendor.broken();
    }

    public String fetch(String store) {
        return vendor.fetch(store);
    }

    /** A history request by a MicroProfile Rest Client with the gate's filter: the vendor's status. */
    public int history(String vendorUrl, String symbol, String day) {
        VendorHistory history = RestClientBuilder.newBuilder().baseUri(URI.create(vendorUrl))
                .build(VendorHistory.class);
        try (Response r = history.history(symbol, day)) {
            return r.getStatus();
        } catch (WebApplicationException refused) { // the Rest Client's way of answering a 4xx
            return refused.getResponse().getStatus();
        }
    }
}
