package dev.gate.web.api;

import jakarta.annotation.security.DeclareRoles;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import org.eclipse.microprofile.openapi.annotations.OpenAPIDefinition;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.info.Info;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;

/** The API's root: {@code /gate/api/v1}. Roles are checked per resource method; the contract is served at /openapi. */
@ApplicationPath("/api/v1")
@DeclareRoles({"caller", "operator", "viewer"})
@OpenAPIDefinition(
        info = @Info(title = "gate", version = "1",
                description = "One shared line, in PostgreSQL, for every outbound call to a rate-limited vendor. "
                        + "Join a limit's line, wait (long-poll) for the grant, call the vendor, report the outcome. "
                        + "Errors are application/problem+json (RFC 9457); 503 with Retry-After means calls are "
                        + "paused because the gate's database is unavailable."),
        security = @SecurityRequirement(name = "basic"))
@SecurityScheme(securitySchemeName = "basic", type = SecuritySchemeType.HTTP, scheme = "basic",
        description = "A gate account: role caller (its name is the program of its calls), operator or viewer")
public class GateApi extends Application {
}
