package dev.gate.client;

import dev.gate.headers.VendorHeaders;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;

import java.io.StringReader;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The JSON of the gate's HTTP API as {@link HttpGate} writes and reads it (JSON-P): a submission, a try and an
 * outcome sent; a call's answer read, and a refusal (an RFC 9457 problem) told as its typed
 * {@link GateClientException}.
 */
final class ApiJson {

    private ApiJson() {
    }

    /** A submission's body: its class and lease, and each option it has. */
    static String submission(CallClass callClass, Duration lease, CallOptions options) {
        JsonObjectBuilder body = Json.createObjectBuilder().add("class", callClass.name())
                .add("leaseSeconds", lease.toSeconds());
        if (options.deadline() != null) {
            body.add("deadlineSeconds", Math.max(1, options.deadline().toSeconds()));
        }
        if (options.concurrencyKey() != null) {
            body.add("concurrencyKey", options.concurrencyKey());
        }
        if (options.dedupeKey() != null) {
            body.add("dedupeKey", options.dedupeKey());
        }
        if (options.limitKey() != null) {
            body.add("key", options.limitKey());
        }
        if (options.cost() != null) {
            body.add("cost", options.cost());
        }
        return body.build().toString();
    }

    /** A try's body: its class and lease, the key of a keyed limit (null: none) and its cost (null: 1). */
    static String attempt(CallClass callClass, Duration lease, String key, Integer cost) {
        JsonObjectBuilder fields = Json.createObjectBuilder().add("class", callClass.name());
        if (lease != null) { // none for a consuming try: its call ends at once
            fields.add("leaseSeconds", lease.toSeconds());
        }
        if (key != null) {
            fields.add("key", key);
        }
        if (cost != null) {
            fields.add("cost", cost);
        }
        return fields.build().toString();
    }

    /** An outcome's body: the vendor's status, and its Retry-After when it sent one. */
    static String outcome(int status, Duration retryAfter) {
        JsonObjectBuilder body = Json.createObjectBuilder().add("status", status);
        if (retryAfter != null) {
            body.add("retryAfterSeconds", retryAfter.toSeconds());
        }
        return body.build().toString();
    }

    /** An outcome's body with what the vendor's headers said: its Retry-After, its count (units left, seconds). */
    static String outcome(int status, VendorHeaders said) {
        JsonObjectBuilder body = Json.createObjectBuilder().add("status", status);
        if (said.retryAfter() != null) { // VendorHeaders holds these to what the API takes
            body.add("retryAfterSeconds", said.retryAfter().toSeconds());
        }
        if (said.hasCount()) {
            body.add("remaining", said.remaining()).add("resetSeconds", said.reset().toSeconds());
            if (said.quota() != null) {
                body.add("quota", said.quota());
            }
        }
        return body.build().toString();
    }

    /** A call's outcome as the gate tells it ({@code outcome} of a call's JSON). */
    static Outcome outcome(JsonObject o) {
        return new Outcome(o.getInt("status"), o.isNull("retryAfterSeconds") ? null
                : Duration.ofSeconds(o.getInt("retryAfterSeconds")));
    }

    static boolean isLineFull(HttpResponse<String> r) {
        return isProblem(r, "line-full");
    }

    static boolean isNoFreeSlot(HttpResponse<String> r) {
        return isProblem(r, "no-free-slot");
    }

    static boolean isSignInHeld(HttpResponse<String> r) {
        return isProblem(r, "sign-in-held");
    }

    private static boolean isProblem(HttpResponse<String> r, String slug) {
        return r.body() != null && r.body().contains("\"urn:gate:problem:" + slug + "\"");
    }

    /** The answer's Retry-After in seconds (the gate sends no date); 1 s when it has none that can be read. */
    static Duration retryAfter(HttpResponse<String> r) {
        try {
            return Duration.ofSeconds(Math.max(1, Long.parseLong(r.headers().firstValue("Retry-After").orElse("1")
                    .trim())));
        } catch (NumberFormatException notSeconds) {
            return Duration.ofSeconds(1);
        }
    }

    static Duration retryAfterMs(HttpResponse<String> r) {
        try (JsonReader reader = Json.createReader(new StringReader(r.body()))) {
            return Duration.ofMillis(reader.readObject().getJsonNumber("retryAfterMs").longValue());
        } catch (RuntimeException notThere) {
            return Duration.ofSeconds(1);
        }
    }

    static boolean isPaused(HttpResponse<String> r) {
        return r.body() != null && r.body().contains("\"Calls are paused\"");
    }

    /** The answer's JSON when its status is one of {@code ok}; else its refusal is thrown. */
    static JsonObject answer(HttpResponse<String> r, int... ok) throws GateClientException {
        for (int status : ok) {
            if (r.statusCode() == status) {
                try (JsonReader reader = Json.createReader(new StringReader(r.body()))) {
                    return reader.readObject();
                }
            }
        }
        throw refusal(r);
    }

    static GateClientException refusal(HttpResponse<String> r) {
        String detail = detail(r);
        return switch (r.statusCode()) {
            case 503 -> isPaused(r) ? new GateClientException.Paused(detail) : new GateClientException.Busy(detail);
            case 429 -> isSignInHeld(r) ? new GateClientException.SignInHeld(detail, retryAfter(r))
                    : isLineFull(r) ? new GateClientException.LineFull(detail, retryAfterMs(r))
                    : new GateClientException.DeadlineMissed(detail);
            case 404 -> new GateClientException.UnknownLimit(detail);
            case 400, 401, 403, 413 -> throw new IllegalArgumentException("the gate refused the request ("
                    + r.statusCode() + "): " + detail);
            default -> new GateClientException("the gate answered " + r.statusCode() + ": " + detail);
        };
    }

    private static String detail(HttpResponse<String> r) {
        try (JsonReader reader = Json.createReader(new StringReader(r.body()))) {
            JsonObject problem = reader.readObject();
            return problem.getString("detail", problem.getString("title", r.body()));
        } catch (RuntimeException notJson) {
            return r.body() == null || r.body().isBlank() ? "HTTP " + r.statusCode() : r.body();
        }
    }
}
