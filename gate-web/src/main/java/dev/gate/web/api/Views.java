package dev.gate.web.api;

import dev.gate.app.CallView;
import dev.gate.api.CallClass;
import dev.gate.api.LimitStatus;
import dev.gate.api.RuleUse;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Map;

/** The API's JSON, field for field as the contract names them; absent values are explicit nulls. */
final class Views {

    private Views() {
    }

    /** A call; a waiting one also says how many calls are ahead of it and when it may expect its grant. */
    static JsonObject call(CallView c) {
        JsonObjectBuilder b = JsonBuilders.object()
                .add("id", c.id())
                .add("limit", c.limit())
                .add("class", c.callClass().name())
                .add("program", c.program())
                .add("state", c.state().name());
        time(b, "enqueuedAt", c.enqueuedAt());
        time(b, "grantedAt", c.grantedAt());
        time(b, "leaseExpiresAt", c.leaseExpiresAt());
        if (c.outcomeStatus() == null) {
            b.addNull("outcome");
        } else {
            JsonObjectBuilder outcome = JsonBuilders.object().add("status", c.outcomeStatus());
            if (c.outcomeRetryAfterSeconds() == null) {
                outcome.addNull("retryAfterSeconds");
            } else {
                outcome.add("retryAfterSeconds", c.outcomeRetryAfterSeconds());
            }
            b.add("outcome", outcome);
        }
        b.add("joiners", c.joiners());
        if (c.position() == null) {
            b.addNull("position");
        } else {
            b.add("position", c.position());
        }
        time(b, "estimatedGrantAt", c.estimatedGrantAt());
        return b.build();
    }

    /** A submission's answer: the call, and whether its dedupe key joined a live call. */
    static JsonObject submitted(CallView c, boolean joined, boolean repeated) {
        return JsonBuilders.object(call(c)).add("joined", joined).add("repeated", repeated).build();
    }

    static JsonObject limit(LimitStatus l) {
        JsonObjectBuilder b = JsonBuilders.object()
                .add("name", l.getName())
                .add("calls", l.getCalls())
                .add("windowSeconds", l.getWindowMs() % 1000 == 0 ? BigDecimal.valueOf(l.getWindowMs() / 1000)
                        : BigDecimal.valueOf(l.getWindowMs(), 3))
                .add("usedInWindow", l.getUsedInWindow())
                .add("savedSends", l.getSavedSends());
        aligned(b, l.getWindows().get(0));
        JsonArrayBuilder rules = Json.createArrayBuilder();
        for (RuleUse r : l.getWindows().subList(1, l.getWindows().size())) {
            JsonObjectBuilder rule = JsonBuilders.object().add("calls", r.getCalls())
                    .add("windowSeconds", r.getWindowMs() % 1000 == 0 ? BigDecimal.valueOf(r.getWindowMs() / 1000)
                            : BigDecimal.valueOf(r.getWindowMs(), 3))
                    .add("usedInWindow", r.getUsed());
            aligned(rule, r);
            rules.add(rule);
        }
        b.add("rules", rules);
        time(b, "nextSlotAt", l.getNextSlotAt());
        time(b, "pausedUntil", l.getPausedUntil());
        b.add("waiting", byClass(l.getWaiting()));
        b.add("oldestWaitMs", byClass(l.getOldestWaitMs()));
        b.add("coolDownStep", l.getCoolDownStep());
        if (l.getVendorLeft() == null) {
            b.addNull("vendorCount");
        } else { // the vendor's own count in force: left by its word, until its reset, and who reported it
            JsonObjectBuilder count = JsonBuilders.object().add("left", l.getVendorLeft())
                    .add("resetAt", l.getVendorResetAt().toString());
            if (l.getVendorProgram() != null) {
                count.add("program", l.getVendorProgram());
            }
            if (l.getVendorCall() != null) {
                count.add("call", l.getVendorCall());
            }
            b.add("vendorCount", count);
        }
        time(b, "slowedAt", l.getSlowedAt());
        if (l.getSlowedBy() == null) {
            b.addNull("slowedBy");
        } else {
            // who paused the line for everyone: the vendor's status, and the program and call that reported it
            JsonObjectBuilder by = JsonBuilders.object().add("status", l.getSlowedBy());
            if (l.getSlowedByProgram() != null) {
                by.add("program", l.getSlowedByProgram());
            }
            if (l.getSlowedByCall() != null) {
                by.add("call", l.getSlowedByCall());
            }
            b.add("slowedBy", by);
        }
        b.add("maxCoolDownSeconds", l.getMaxCoolDownMs() / 1000);
        if (l.getStarvingAfterMs() == null) {
            b.addNull("starvingAfterSeconds");
        } else {
            b.add("starvingAfterSeconds", l.getStarvingAfterMs() / 1000);
        }
        if (l.getAgingAfterMs() == null) {
            b.addNull("agingAfterSeconds").addNull("agingUpTo");
        } else {
            b.add("agingAfterSeconds", l.getAgingAfterMs() / 1000).add("agingUpTo", l.getAgingUpTo());
        }
        b.add("agedLastHour", l.getAgedLastHour());
        b.add("fairPrograms", l.isFairPrograms());
        b.add("burst", l.getBurst());
        b.add("adaptive", l.getEffectiveCalls() != null);
        b.add("keyed", l.isKeyed());
        if (l.getParent() == null) {
            b.addNull("parent");
        } else {
            b.add("parent", l.getParent());
        }
        if (l.getOpenKeys() == null) {
            b.addNull("openKeys");
        } else {
            b.add("openKeys", l.getOpenKeys());
        }
        if (l.getEffectiveCalls() == null) {
            b.addNull("effectiveCalls");
        } else {
            b.add("effectiveCalls", l.getEffectiveCalls());
        }
        LimitStatus.LineBounds line = l.getLine();
        b.add("maxWaiting", line.getMaxWaiting());
        if (line.getMaxWaitingPerProgram() == null) {
            b.addNull("maxWaitingPerProgram");
        } else {
            b.add("maxWaitingPerProgram", line.getMaxWaitingPerProgram());
        }
        b.add("maxKeys", line.getMaxKeys());
        JsonObjectBuilder full = JsonBuilders.object().add("refused", line.getRefused());
        time(full, "lastAt", line.getLastRefusedAt());
        b.add("lineFull", full);
        return b.build();
    }

    /** An aligned rule's blocks and when the current one ends ({@code aligned} null for a sliding rule). */
    private static void aligned(JsonObjectBuilder b, RuleUse r) {
        if (r.getAlignedZone() == null) {
            b.addNull("aligned");
            return;
        }
        b.add("aligned", JsonBuilders.object().add("zone", r.getAlignedZone()).add("at", r.getAlignedAt()));
        time(b, "resetsAt", r.getResetsAt());
    }

    private static JsonObjectBuilder byClass(Map<String, Long> values) {
        JsonObjectBuilder b = JsonBuilders.object();
        for (CallClass c : CallClass.values()) {
            Long v = values.get(c.name());
            if (v == null) {
                b.addNull(c.name());
            } else {
                b.add(c.name(), v);
            }
        }
        return b;
    }

    private static void time(JsonObjectBuilder b, String field, Instant t) {
        if (t == null) {
            b.addNull(field);
        } else {
            b.add(field, t.toString());
        }
    }
}
