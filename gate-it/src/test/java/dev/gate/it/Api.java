package dev.gate.it;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonStructure;

import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/** The gate's HTTP API as a program in any language sees it: real HTTP, Basic credentials, JSON. */
final class Api {

    static final String BASE = "http://127.0.0.1:8080/gate/api/v1";

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Api() {
    }

    record Answer(int status, String contentType, String body, HttpResponse<String> raw) {

        JsonObject json() {
            try (JsonReader r = Json.createReader(new StringReader(body))) {
                return r.readObject();
            }
        }

        JsonStructure structure() {
            try (JsonReader r = Json.createReader(new StringReader(body))) {
                return r.read();
            }
        }

        boolean isProblem() {
            return contentType != null && contentType.startsWith("application/problem+json");
        }
    }

    static Answer call(String user, String method, String path, String body) {
        return at(user, method, URI.create(BASE + path), body);
    }

    /** A request; {@code headers} are name, value pairs. */
    static Answer at(String user, String method, URI uri, String body, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(90))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (user != null) {
            String pair = user.contains(":") ? user : user + ":" + user; // development accounts: name = password
            b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
        }
        try {
            HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.headers().firstValue("Content-Type").orElse(null), r.body(), r);
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + uri + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static Answer get(String user, String path) {
        return call(user, "GET", path, null);
    }

    static Answer post(String user, String path, String body) {
        return call(user, "POST", path, body);
    }

    static Answer put(String user, String path, String body) {
        return call(user, "PUT", path, body);
    }

    static Answer delete(String user, String path) {
        return call(user, "DELETE", path, null);
    }
}
