package dev.gate.it;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An operator's hand on the line over HTTP: pause a limit and see new calls wait, resume and see them granted;
 * cancel a waiting call; drain a program; every action recorded with who did it; callers may not act.
 */
class OperatorActionsIT extends GateDeployedAlone {

    @Test
    void aPausedLimitHoldsNewCallsAndResumingLetsThemGo() {
        assertEquals(201, Api.put("ops", "/limits/op-pause", "{\"calls\":100,\"windowSeconds\":1}").status());
        assertEquals(403, Api.post("web", "/limits/op-pause/pause", "{\"seconds\":60}").status(),
                "a caller cannot pause");
        Api.Answer paused = Api.post("ops", "/limits/op-pause/pause", "{\"seconds\":60}");
        assertEquals(200, paused.status(), paused.body());
        Instant until = Instant.parse(paused.json().getString("pausedUntil"));
        assertTrue(until.isAfter(Instant.now().plusSeconds(50)), "paused for about a minute: " + until);

        JsonObject held = Api.post("web", "/limits/op-pause/calls?waitSeconds=1", "{\"class\":\"INTERACTIVE\"}").json();
        assertEquals("WAITING", held.getString("state"), "an open limit, paused: the call waits");
        long id = held.getJsonNumber("id").longValue();

        Api.Answer resumed = Api.post("ops", "/limits/op-pause/resume", null);
        assertEquals(200, resumed.status(), resumed.body());
        assertTrue(resumed.json().isNull("pausedUntil") || !resumed.json().containsKey("pausedUntil"),
                resumed.body());
        assertEquals("GRANTED", Api.get("web", "/calls/" + id + "?waitSeconds=10").json().getString("state"),
                "granted once resumed");
    }

    @Test
    void aVendorsCountOfNothingLeftHoldsNoLongerThanMaxCoolDownIsRecordedAndEndsAtTheOperatorsResume() {
        assertEquals(201, Api.put("ops", "/limits/op-count",
                "{\"calls\":36000,\"windowSeconds\":3600,\"maxCoolDownSeconds\":60}").status());
        Api.Answer first = Api.post("worker", "/limits/op-count/calls?mode=try", "{\"class\":\"SCHEDULED\"}");
        assertEquals(201, first.status(), first.body());
        long id = first.json().getJsonNumber("id").longValue();
        assertEquals(204, Api.post("worker", "/calls/" + id + "/outcome",
                "{\"status\":200,\"remaining\":0,\"resetSeconds\":3600}").status());

        Api.Answer held = Api.post("web", "/limits/op-count/calls?mode=try", "{\"class\":\"INTERACTIVE\"}");
        assertEquals(429, held.status(), held.body());
        long retryAfter = Long.parseLong(held.raw().headers().firstValue("Retry-After").orElseThrow());
        assertTrue(retryAfter > 50 && retryAfter <= 61, "held as a cool-down is, up to maxCoolDown: " + retryAfter);
        JsonObject count = Api.get("ops", "/limits/op-count").json().getJsonObject("vendorCount");
        assertEquals(0, count.getInt("left"), count.toString());
        assertEquals("worker", count.getString("program"), "who reported it");
        assertEquals(id, count.getJsonNumber("call").longValue());
        assertTrue(Api.get("ops", "/actions").json().getJsonArray("actions").getValuesAs(JsonObject.class).stream()
                .anyMatch(a -> a.getString("action").equals("vendor-count") && a.getString("actor").equals("worker")
                        && a.getString("target").equals("limit op-count")), "on record beside the operators' actions");

        assertEquals(200, Api.post("ops", "/limits/op-count/resume", null).status());
        assertTrue(Api.get("ops", "/limits/op-count").json().isNull("vendorCount"), "the resume ended the count");
        Api.Answer after = Api.post("web", "/limits/op-count/calls?waitSeconds=5", "{\"class\":\"INTERACTIVE\"}");
        assertEquals("GRANTED", after.json().getString("state"), after.body());
    }

    @Test
    void badPausesAreRefusedWithAProblemAndChangeNothing() {
        Api.put("ops", "/limits/op-bad", "{\"calls\":100,\"windowSeconds\":1}");
        for (String body : List.of("{\"seconds\":0}", "{}", "{\"seconds\":604801}", "{\"seconds\":5,\"x\":1}",
                "not json")) {
            Api.Answer bad = Api.post("ops", "/limits/op-bad/pause", body);
            assertEquals(400, bad.status(), body + ": " + bad.body());
            assertTrue(bad.isProblem(), bad.contentType());
        }
        assertEquals(404, Api.post("ops", "/limits/op-none/pause", "{\"seconds\":5}").status());
        assertTrue(Api.get("ops", "/limits/op-bad").json().isNull("pausedUntil")
                || !Api.get("ops", "/limits/op-bad").json().containsKey("pausedUntil"), "not paused");
    }

    @Test
    void anOperatorCancelsAWaitingCallAndDrainsAProgramAndEveryActionIsRecorded() {
        Api.put("ops", "/limits/op-line", "{\"calls\":1,\"windowSeconds\":60}");
        Api.put("ops", "/limits/op-line-2", "{\"calls\":1,\"windowSeconds\":60}");
        Api.post("web", "/limits/op-line/calls", "{\"class\":\"SCHEDULED\"}"); // takes the minute's slot
        Api.post("web", "/limits/op-line-2/calls", "{\"class\":\"SCHEDULED\"}");
        List<Long> workers = new ArrayList<>();
        for (String limit : List.of("op-line", "op-line", "op-line-2")) {
            workers.add(Api.post("worker", "/limits/" + limit + "/calls", "{\"class\":\"BACKFILL\"}").json()
                    .getJsonNumber("id").longValue());
        }
        long webWaiting = Api.post("web", "/limits/op-line/calls", "{\"class\":\"BACKFILL\"}").json()
                .getJsonNumber("id").longValue();

        assertEquals(403, Api.delete("web", "/limits/op-line/calls/" + workers.get(0)).status());
        assertEquals(204, Api.delete("ops", "/limits/op-line/calls/" + workers.get(0)).status());
        assertEquals("CANCELLED", Api.get("worker", "/calls/" + workers.get(0)).json().getString("state"));
        Api.Answer again = Api.delete("ops", "/limits/op-line/calls/" + workers.get(0));
        assertEquals(409, again.status(), again.body());
        assertTrue(again.isProblem());
        assertEquals(409, Api.delete("ops", "/limits/op-line-2/calls/" + workers.get(1)).status(),
                "a call of another limit is not cancelled through this one");

        Api.Answer drained = Api.post("ops", "/programs/worker/drain?limit=op-line-2", null);
        assertEquals(200, drained.status(), drained.body());
        assertEquals(1, drained.json().getInt("cancelled"));
        assertEquals("WAITING", Api.get("worker", "/calls/" + workers.get(1)).json().getString("state"));
        assertEquals(1, Api.post("ops", "/programs/worker/drain", null).json().getInt("cancelled"));
        assertEquals("CANCELLED", Api.get("worker", "/calls/" + workers.get(1)).json().getString("state"));
        assertEquals("WAITING", Api.get("web", "/calls/" + webWaiting).json().getString("state"),
                "another program's call is untouched");
        assertEquals(403, Api.post("worker", "/programs/web/drain", null).status(), "a caller cannot drain");
        Api.Answer tooLong = Api.post("ops", "/programs/" + "p".repeat(300) + "/drain", null);
        assertEquals(400, tooLong.status(), "no program has such a name: " + tooLong.body());
        assertTrue(tooLong.isProblem() && tooLong.json().getString("detail").startsWith("program: must be 1-64"),
                tooLong.body());

        List<JsonObject> actions = Api.get("ops", "/actions").json().getJsonArray("actions")
                .getValuesAs(JsonObject.class);
        List<String> mine = actions.stream()
                .filter(a -> a.getString("target").contains("op-line") || a.getString("target").equals("program worker")
                        || a.getString("target").startsWith("call "))
                .map(a -> a.getString("actor") + " " + a.getString("action") + " " + a.getString("target"))
                .limit(5).toList();
        assertEquals(List.of("ops drain program worker", "ops drain program worker",
                "ops cancel-call call " + workers.get(0), "ops create-limit limit op-line-2",
                "ops create-limit limit op-line"), mine, "newest first, with who did it");
        assertEquals(403, Api.get("web", "/actions").status(), "callers do not see the actions");
    }
}
