package dev.gate.demo.web;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.rest.client.annotation.RegisterProvider;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/**
 * The demo vendor's quotes, as a MicroProfile Rest Client: its address is the setting {@code demo-vendor/mp-rest/url}
 * (META-INF/microprofile-config.properties), and every request waits in the gate's line by its provider.
 */
@Path("/")
@RegisterRestClient(configKey = "demo-vendor")
@RegisterProvider(QuoteGate.class)
public interface DemoVendor {

    @GET
    @Path("quote/{symbol}")
    Response quote(@PathParam("symbol") String symbol);
}
