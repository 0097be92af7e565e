package dev.gate.it.gated;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.rest.client.annotation.RegisterProvider;

/** The demo vendor's history as a MicroProfile Rest Client on the server, through the gate by its provider. */
@Path("/")
@RegisterProvider(HistoryGate.class)
public interface VendorHistory {

    @GET
    @Path("history/{symbol}/{day}")
    Response history(@PathParam("symbol") String symbol, @PathParam("day") String day);
}
