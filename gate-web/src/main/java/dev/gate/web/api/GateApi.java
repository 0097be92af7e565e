package dev.gate.web.api;

import jakarta.annotation.security.DeclareRoles;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The API's root: {@code /gate/api/v1}. Roles are checked per resource method. */
@ApplicationPath("/api/v1")
@DeclareRoles({"caller", "operator", "viewer"})
public class GateApi extends Application {
}
