package dev.gate.it.filtered;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;

/** The vendor's history API as a MicroProfile Rest Client interface, for the client filters' tests. */
@Path("/")
public interface VendorHistory {

    @GET
    @Path("history/{symbol}/{day}")
    Response history(@PathParam("symbol") String symbol, @PathParam("day") String day);
}
