package dev.gate.web.api;

/** An RFC 9457 problem body. */
public record Problem(String type, String title, int status, String detail) {

    public static final String MEDIA_TYPE = "application/problem+json";
}
