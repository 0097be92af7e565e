package dev.gate.web.api;

import dev.gate.web.problem.Problem;

import jakarta.json.JsonArray;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParsingException;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/** Request bodies: at most 16 KiB of one JSON object, read field by field with errors that name the field. */
final class Bodies {

    static final int MAX_BYTES = 16 * 1024;

    private Bodies() {
    }

    /** The body as a JSON object; an absent body is an empty object. Unknown keys are refused. */
    static JsonObject object(InputStream in, Set<String> known) {
        byte[] bytes;
        try {
            bytes = in == null ? new byte[0] : in.readNBytes(MAX_BYTES + 1);
        } catch (IOException e) {
            throw ProblemException.badRequest("body", "could not be read: " + e.getMessage());
        }
        if (bytes.length > MAX_BYTES) {
            throw new ProblemException(Problem.of(413, "too-large", "Request body too large",
                    "body: larger than " + MAX_BYTES + " bytes"));
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (text.isBlank()) {
            return JsonValue.EMPTY_JSON_OBJECT;
        }
        JsonStructure parsed;
        try (JsonReader reader = JsonBuilders.reader(new StringReader(text))) {
            parsed = reader.read();
        } catch (JsonParsingException e) {
            throw new ProblemException(Problem.of(400, "malformed-json", "Malformed JSON", "body: " + e.getMessage()));
        } catch (JsonException e) {
            throw new ProblemException(Problem.of(400, "malformed-json", "Malformed JSON",
                    "body: not a JSON object (" + e.getMessage() + ")"));
        }
        if (!(parsed instanceof JsonObject object)) {
            throw ProblemException.badRequest("body", "must be a JSON object");
        }
        onlyKnown(object, known, "");
        return object;
    }

    static void onlyKnown(JsonObject object, Set<String> known, String prefix) {
        for (String key : object.keySet()) {
            if (!known.contains(key)) {
                throw ProblemException.badRequest(prefix + key, "unknown field; known fields are " + known);
            }
        }
    }

    /** An array field of {@code min..max} items; an empty array when absent. */
    static JsonArray array(JsonObject body, String field, int min, int max) {
        JsonValue v = body.get(field);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return JsonValue.EMPTY_JSON_ARRAY;
        }
        if (!(v instanceof JsonArray a)) {
            throw ProblemException.badRequest(field, "must be an array");
        }
        if (a.size() < min || a.size() > max) {
            throw ProblemException.badRequest(field, "must hold " + min + " to " + max + " items, held " + a.size());
        }
        return a;
    }

    /** An integer array item within bounds. */
    static int integer(JsonArray array, int index, String name, long min, long max) {
        JsonObject wrapped = JsonBuilders.object().add(name, array.get(index)).build();
        return integer(wrapped, name, min, max, null);
    }

    /** As {@link #integer(JsonObject, String, long, long, Integer)}, the field named {@code prefix + field}. */
    static int integer(JsonObject body, String field, long min, long max, Integer fallback, String prefix) {
        return integer(body, field, prefix + field, min, max, fallback);
    }

    static String requiredString(JsonObject body, String field) {
        return requiredString(body, field, "");
    }

    /** As above, the field named {@code prefix + field}. */
    static String requiredString(JsonObject body, String field, String prefix) {
        JsonValue v = body.get(field);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            throw ProblemException.badRequest(prefix + field, "is required");
        }
        if (!(v instanceof JsonString s)) {
            throw ProblemException.badRequest(prefix + field, "must be a string");
        }
        return s.getString();
    }

    /** An integer field within bounds; {@code fallback} when absent (null: required). */
    static int integer(JsonObject body, String field, long min, long max, Integer fallback) {
        return integer(body, field, field, min, max, fallback);
    }

    private static int integer(JsonObject body, String key, String field, long min, long max, Integer fallback) {
        JsonValue v = body.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            if (fallback == null) {
                throw ProblemException.badRequest(field, "is required");
            }
            return fallback;
        }
        if (!(v instanceof JsonNumber n)) {
            throw ProblemException.badRequest(field, "must be a number");
        }
        BigDecimal d = n.bigDecimalValue();
        if (d.stripTrailingZeros().scale() > 0) {
            throw ProblemException.badRequest(field, "must be a whole number");
        }
        if (d.compareTo(BigDecimal.valueOf(min)) < 0 || d.compareTo(BigDecimal.valueOf(max)) > 0) {
            throw ProblemException.badRequest(field, "must be between " + min + " and " + max + ", was " + d);
        }
        return d.intValueExact();
    }

    /** A query parameter that is an integer within bounds; {@code fallback} when absent. */
    static int queryInteger(String raw, String name, int min, int max, int fallback) {
        if (raw == null || raw.isEmpty()) {
            return fallback;
        }
        int value;
        try {
            value = Integer.parseInt(raw);
        } catch (NumberFormatException e) {
            throw ProblemException.badRequest(name, "must be a whole number between " + min + " and " + max
                    + ", was '" + raw + "'");
        }
        if (value < min || value > max) {
            throw ProblemException.badRequest(name, "must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    static long id(String raw) {
        try {
            long id = Long.parseLong(raw);
            if (id > 0) {
                return id;
            }
        } catch (NumberFormatException ignored) {
            // answered below
        }
        throw ProblemException.notFound("call: no call " + raw);
    }
}
