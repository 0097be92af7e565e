package dev.gate.web.problem;

import jakarta.json.JsonObject;
import jakarta.json.spi.JsonProvider;
import jakarta.ws.rs.core.Response;

/** An RFC 9457 problem: every error the API answers is one, as {@code application/problem+json}. */
public record Problem(String type, String title, int status, String detail) {

    public static final String MEDIA_TYPE = "application/problem+json";

    // Looked up once: Json.createXxx looks the provider up on every call (see web.api's JsonBuilders)
    private static final JsonProvider JSON = JsonProvider.provider();

    /** A problem decided before any resource ran (authentication), for the container's error page to write. */
    public static final String REQUEST_ATTRIBUTE = "dev.gate.problem";

    /** The Retry-After seconds (a Long) of a problem decided before any resource ran, for the error page. */
    public static final String RETRY_AFTER_ATTRIBUTE = "dev.gate.problem.retryAfter";

    public JsonObject json() {
        return JSON.createObjectBuilder().add("type", type).add("title", title).add("status", status)
                .add("detail", detail == null ? "" : detail).build();
    }

    public Response response() {
        return Response.status(status).type(MEDIA_TYPE).entity(json().toString()).build();
    }

    public static Problem of(int status, String slug, String title, String detail) {
        return new Problem("urn:gate:problem:" + slug, title, status, detail);
    }
}
