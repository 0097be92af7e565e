package dev.gate.web.api;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.spi.JsonProvider;

import java.io.Reader;

/**
 * The API's JSON builders and readers, from one provider looked up once. {@code jakarta.json.Json.createXxx} looks
 * the provider up through {@link java.util.ServiceLoader} on every call, which in the EAR means scanning every jar
 * of its lib folder for a service file: measured as about a fifth of the server's CPU per grant over HTTP.
 */
final class JsonBuilders {

    private static final JsonProvider PROVIDER = JsonProvider.provider();

    private JsonBuilders() {
    }

    static JsonObjectBuilder object() {
        return PROVIDER.createObjectBuilder();
    }

    static JsonObjectBuilder object(JsonObject start) {
        return PROVIDER.createObjectBuilder(start);
    }

    static JsonArrayBuilder array() {
        return PROVIDER.createArrayBuilder();
    }

    static JsonReader reader(Reader text) {
        return PROVIDER.createReader(text);
    }
}
