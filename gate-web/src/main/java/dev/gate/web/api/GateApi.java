package dev.gate.web.api;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The API's root: {@code /gate/api/v1}. */
@ApplicationPath("/api/v1")
public class GateApi extends Application {
}
