package dev.gate.it.gated;

import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RunAs;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.Response;

import java.io.IOException;

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
}
