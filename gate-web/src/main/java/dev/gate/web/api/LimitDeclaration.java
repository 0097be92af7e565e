package dev.gate.web.api;

import dev.gate.api.CallClass;
import dev.gate.api.LimitSpec;
import dev.gate.app.LineDefaults;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A limit's declaration as JSON, the body of {@code PUT /limits/{name}} and of the status page's "rules and
 * options" form: checked field by field (a bad one is a {@link ProblemException} naming it), fields left out take
 * their defaults.
 */
public final class LimitDeclaration {

    /** The fields a declaration may have. */
    public static final Set<String> FIELDS = Set.of("calls", "windowSeconds", "aligned", "minIntervalMs", "rules",
            "retryFloorSeconds", "coolDownLadderSeconds", "stepDownAfter", "maxCoolDownSeconds", "receiptMarginMs", "starvingAfterSeconds",
            "agingAfterSeconds", "agingUpTo", "fairPrograms", "burst", "adaptive", "keyed", "parent", "maxWaiting",
            "maxWaitingPerProgram", "maxKeys");

    private static final Set<String> RULE_FIELDS = Set.of("calls", "windowSeconds", "aligned");

    private static final Set<String> ALIGNED_FIELDS = Set.of("zone", "at");

    private LimitDeclaration() {
    }

    /** A rule's fixed blocks: the vendor's zone and its reset time (default 00:00). */
    private record Aligned(ZoneId zone, LocalTime at) {
    }

    /** The rule's {@code aligned} object ({@code prefix}: where the rule is), or null when absent. */
    private static Aligned aligned(JsonObject rule, String prefix) {
        JsonValue v = rule.get("aligned");
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (!(v instanceof JsonObject a)) {
            throw ProblemException.badRequest(prefix + "aligned", "must be an object {zone, at}");
        }
        Bodies.onlyKnown(a, ALIGNED_FIELDS, prefix + "aligned.");
        String zone = Bodies.requiredString(a, "zone", prefix + "aligned.");
        ZoneId id;
        try {
            id = ZoneId.of(zone);
        } catch (java.time.DateTimeException e) {
            throw ProblemException.badRequest(prefix + "aligned.zone", "not a time zone (e.g. America/Los_Angeles): '"
                    + zone + "'");
        }
        LocalTime at = LocalTime.MIDNIGHT;
        JsonValue atValue = a.get("at");
        if (atValue != null && atValue.getValueType() != JsonValue.ValueType.NULL) {
            if (!(atValue instanceof JsonString s) || !s.getString().matches("\\d{2}:\\d{2}(:\\d{2})?")) {
                throw ProblemException.badRequest(prefix + "aligned.at", "must be a time of day, HH:MM");
            }
            try {
                at = LocalTime.parse(s.getString());
            } catch (java.time.DateTimeException e) {
                throw ProblemException.badRequest(prefix + "aligned.at", "must be a time of day, HH:MM: '"
                        + s.getString() + "'");
            }
        }
        return new Aligned(id, at);
    }

    /** The declaration as JSON text (the status page's form). */
    public static LimitSpec parse(String json) {
        return parse(Bodies.object(new java.io.ByteArrayInputStream(
                json.getBytes(java.nio.charset.StandardCharsets.UTF_8)), FIELDS));
    }

    /** @param fields a body already read with only the known {@link #FIELDS} */
    public static LimitSpec parse(JsonObject fields) {
        LimitSpec spec = LimitSpec.of(Bodies.integer(fields, "calls", 1, 1_000_000_000, null),
                Duration.ofSeconds(Bodies.integer(fields, "windowSeconds", 1, 7 * 24 * 3600, null)));
        Aligned aligned = aligned(fields, "");
        if (aligned != null) {
            spec = spec.withAligned(aligned.zone(), aligned.at());
        }
        int minIntervalMs = Bodies.integer(fields, "minIntervalMs", 0, 86_400_000, 0);
        List<LimitSpec.Rule> rules = new ArrayList<>();
        JsonArray more = Bodies.array(fields, "rules", 0, 10);
        for (int i = 0; i < more.size(); i++) {
            if (!(more.get(i) instanceof JsonObject rule)) {
                throw ProblemException.badRequest("rules[" + i + "]", "must be an object {calls, windowSeconds}");
            }
            Bodies.onlyKnown(rule, RULE_FIELDS, "rules[" + i + "].");
            Aligned ruleAligned = aligned(rule, "rules[" + i + "].");
            rules.add(new LimitSpec.Rule(Bodies.integer(rule, "calls", 1, 1_000_000_000, null, "rules[" + i + "]."),
                    Duration.ofSeconds(Bodies.integer(rule, "windowSeconds", 1, 7 * 24 * 3600, null,
                            "rules[" + i + "].")), ruleAligned == null ? null : ruleAligned.zone(),
                    ruleAligned == null ? null : ruleAligned.at()));
        }
        int floor = Bodies.integer(fields, "retryFloorSeconds", 1, 86_400, (int) spec.retryFloor().toSeconds());
        List<Duration> ladder = new ArrayList<>();
        JsonArray steps = Bodies.array(fields, "coolDownLadderSeconds", 1, 20);
        for (int i = 0; i < steps.size(); i++) {
            ladder.add(Duration.ofSeconds(Bodies.integer(steps, i, "coolDownLadderSeconds[" + i + "]", 1, 86_400)));
        }
        if (ladder.isEmpty()) {
            ladder = spec.coolDownLadder();
        }
        int stepDownAfter = Bodies.integer(fields, "stepDownAfter", 1, 10_000, spec.stepDownAfter());
        if (fields.containsKey("starvingAfterSeconds") && !fields.isNull("starvingAfterSeconds")) {
            spec = spec.withStarvingAfter(Duration.ofSeconds(
                    Bodies.integer(fields, "starvingAfterSeconds", 1, 7 * 24 * 3600, null)));
        }
        if (fields.containsKey("agingAfterSeconds") && !fields.isNull("agingAfterSeconds")) {
            spec = spec.withAging(Duration.ofSeconds(Bodies.integer(fields, "agingAfterSeconds", 1, 7 * 24 * 3600, null)),
                    agingUpTo(fields));
        } else if (fields.containsKey("agingUpTo") && !fields.isNull("agingUpTo")) {
            throw ProblemException.badRequest("agingUpTo", "needs agingAfterSeconds (the starvation guard's wait)");
        }
        spec = spec.withAdaptiveRate(flag(fields, "adaptive")).withKeyed(flag(fields, "keyed"));
        if (fields.containsKey("parent") && !fields.isNull("parent")) {
            if (!spec.keyed()) {
                throw ProblemException.badRequest("parent", "needs \"keyed\": true (a parent holds a keyed limit's keys)");
            }
            spec = spec.withParent(Bodies.requiredString(fields, "parent"));
        }
        if (flag(fields, "fairPrograms")) {
            if (spec.agingAfter() != null) {
                throw ProblemException.badRequest("fairPrograms", "not with agingAfterSeconds: a limit takes the "
                        + "starvation guard or programs taking turns, not both");
            }
            spec = spec.withFairPrograms(fields.getBoolean("fairPrograms"));
        }
        int burst = Bodies.integer(fields, "burst", 1, 1_000_000, 1);
        if (burst > spec.calls()) {
            throw ProblemException.badRequest("burst", "must be at most calls (" + spec.calls() + "), was " + burst);
        }
        spec = spec.withBurst(burst);
        int maxWaiting = Bodies.integer(fields, "maxWaiting", 1, 1_000_000, LineDefaults.MAX_WAITING);
        Integer perProgram = null;
        if (fields.containsKey("maxWaitingPerProgram") && !fields.isNull("maxWaitingPerProgram")) {
            perProgram = Bodies.integer(fields, "maxWaitingPerProgram", 1, maxWaiting, null);
        }
        spec = spec.withMaxWaiting(maxWaiting, perProgram)
                .withMaxKeys(Bodies.integer(fields, "maxKeys", 1, 10_000_000, LineDefaults.MAX_KEYS));
        if (fields.containsKey("receiptMarginMs") && !fields.isNull("receiptMarginMs")) {
            spec = spec.withReceiptMargin(Duration.ofMillis(Bodies.integer(fields, "receiptMarginMs", 0, 60_000, 0)));
        }
        // a program's Retry-After pauses every program: it is taken up to this (an outcome may say at most a day)
        spec = spec.withMaxCoolDown(Duration.ofSeconds(Bodies.integer(fields, "maxCoolDownSeconds", 1, 86_400,
                (int) spec.maxCoolDown().toSeconds())));
        return spec.withMinInterval(Duration.ofMillis(minIntervalMs)).withMoreRules(rules)
                .withCoolDown(Duration.ofSeconds(floor), ladder, stepDownAfter);
    }

    /** The guard's class: one above BACKFILL at least; INTERACTIVE when left out (the strongest guarantee). */
    private static CallClass agingUpTo(JsonObject fields) {
        if (!fields.containsKey("agingUpTo") || fields.isNull("agingUpTo")) {
            return CallClass.INTERACTIVE;
        }
        if (!(fields.get("agingUpTo") instanceof jakarta.json.JsonString name)) {
            throw ProblemException.badRequest("agingUpTo", "must be a class name: INTERACTIVE, MANUAL, SCHEDULED or "
                    + "FOLLOW_UP");
        }
        try {
            CallClass upTo = CallClass.valueOf(name.getString());
            if (upTo != CallClass.BACKFILL) {
                return upTo;
            }
        } catch (IllegalArgumentException e) {
            // below
        }
        throw ProblemException.badRequest("agingUpTo", "must be INTERACTIVE, MANUAL, SCHEDULED or FOLLOW_UP, was '"
                + name.getString() + "'");
    }

    /** A true/false field; false when left out. */
    private static boolean flag(JsonObject fields, String field) {
        if (!fields.containsKey(field) || fields.isNull(field)) {
            return false;
        }
        jakarta.json.JsonValue.ValueType type = fields.get(field).getValueType();
        if (type != jakarta.json.JsonValue.ValueType.TRUE && type != jakarta.json.JsonValue.ValueType.FALSE) {
            throw ProblemException.badRequest(field, "must be true or false");
        }
        return type == jakarta.json.JsonValue.ValueType.TRUE;
    }
}
