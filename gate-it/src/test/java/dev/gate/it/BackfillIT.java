package dev.gate.it;

import dev.gate.dev.VendorServer;
import jakarta.json.JsonObject;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.as.arquillian.container.ManagementClient;
import org.jboss.dmr.ModelNode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The backfill-history job against the real server and a real rate-limited vendor (an HTTP server in this process):
 * every item fetched exactly once through the gate with no window over the vendor's limit; a stopped job restarted
 * from its checkpoint fetches nothing twice and misses nothing; a vendor stricter than the declared limit pauses the
 * limit with its 429s, and the items retry through the line until all are fetched; a database cut in the middle of a
 * job is waited out, and the job finishes with every item fetched once and every 429 reported.
 */
class BackfillIT extends GateDeployedAlone {

    /**
     * The gate's rule for a vendor that allows 20 a second by its own receipt clock: each window is counted with a
     * 100 ms margin for the time a grant takes to reach the vendor (a cold first call takes longer than the 5 ms
     * default, and then the vendor's clock counts 21 in a second now and then).
     */
    private static final String RULE = "{\"calls\":20,\"windowSeconds\":1,\"receiptMarginMs\":100}";

    /**
     * A rule looser than its vendor's (20 a second declared against a vendor of 10): the vendor's 429s pause the limit;
     * a short ladder keeps the tests short.
     */
    private static final String LOOSE_RULE = "{\"calls\":20,\"windowSeconds\":1,\"retryFloorSeconds\":1,"
            + "\"coolDownLadderSeconds\":[1,1,2]}";

    @Test
    void theJobFetchesEveryItemExactlyOnceThroughTheGateWithinTheVendorsLimit() throws Exception {
        Api.put("ops", "/limits/bf-fast", RULE);
        try (VendorServer vendor = new VendorServer(20, Duration.ofSeconds(1))) {
            JsonObject job = start("bf-fast", "AAA,BBB,CCC", "2024-01-01", "2024-02-09", vendor, 10);
            assertEquals(120, job.getJsonObject("progress").getInt("total"));
            JsonObject done = await(job, Duration.ofSeconds(90), j -> !j.getBoolean("running"));
            assertEquals("COMPLETED", done.getString("status"), done.toString());
            assertEquals(120, done.getJsonObject("progress").getInt("done"));
            assertEquals(0, vendor.refused(), "no 429: the gate kept to the limit");
            assertTrue(vendor.worstWindow() <= 20, "worst window at the vendor: " + vendor.worstWindow());
            assertEachFetchedOnce(vendor, 120);
            assertEquals(120, results(done, "status = 200"));
        }
    }

    @Test
    void aStoppedJobRestartsFromItsCheckpointAndFetchesNothingTwice() throws Exception {
        Api.put("ops", "/limits/bf-stop", RULE);
        try (VendorServer vendor = new VendorServer(20, Duration.ofSeconds(1))) {
            JsonObject job = start("bf-stop", "AAA,BBB,CCC,DDD,EEE", "2024-01-01", "2024-02-09", vendor, 10);
            await(job, Duration.ofSeconds(60), j -> j.getJsonObject("progress").getInt("done") >= 40);
            Api.Answer stop = Api.post("ops", "/jobs/" + job.getJsonNumber("executionId") + "/stop", null);
            assertEquals(200, stop.status(), stop.body());
            JsonObject stopped = await(job, Duration.ofSeconds(30), j -> !j.getBoolean("running"));
            assertEquals("STOPPED", stopped.getString("status"), stopped.toString());
            long before = results(stopped, "true");
            assertTrue(before >= 40 && before < 200, "stopped part-way: " + before);
            assertEquals(before, vendor.requests(), "what was fetched before the stop is what was written");

            Api.Answer restart = Api.post("ops", "/jobs/" + job.getJsonNumber("executionId") + "/restart", null);
            assertEquals(201, restart.status(), restart.body());
            JsonObject again = restart.json();
            assertEquals(job.getJsonNumber("instanceId"), again.getJsonNumber("instanceId"), "the same job instance");
            JsonObject done = await(again, Duration.ofSeconds(90), j -> !j.getBoolean("running"));
            assertEquals("COMPLETED", done.getString("status"), done.toString());
            assertEachFetchedOnce(vendor, 200);
            assertEquals(200, results(done, "status = 200"));
            assertEquals(409, Api.post("ops", "/jobs/" + again.getJsonNumber("executionId") + "/restart", null)
                    .status(), "a completed job has nothing to restart");
        }
    }

    @Test
    void aVendorStricterThanTheLimitPausesItAndTheItemsRetryThroughTheLineUntilAllAreFetched() throws Exception {
        Api.put("ops", "/limits/bf-strict", LOOSE_RULE);
        try (VendorServer vendor = new VendorServer(10, Duration.ofSeconds(1))) {
            JsonObject job = start("bf-strict", "AAA,BBB", "2024-03-01", "2024-03-30", vendor, 10);
            JsonObject done = await(job, Duration.ofSeconds(120), j -> !j.getBoolean("running"));
            assertEquals("COMPLETED", done.getString("status"), done.toString());
            assertTrue(vendor.refused() > 0, "the vendor did say slow down");
            assertEachFetchedOnce(vendor, 60);
            assertEquals(60, results(done, "status = 200"), "every item kept with the vendor's 200, none lost");
            assertFalse(Api.get("ops", "/limits/bf-strict").json().isNull("slowedAt"),
                    "the 429s reached the gate: the limit was slowed");
        }
    }

    @Test
    void aChunkCutByAFailedItemIsReadAgainOnRestartWithoutFetchingItsItemsAgain() throws Exception {
        Api.put("ops", "/limits/bf-fail", RULE);
        try (VendorServer vendor = new VendorServer(20, Duration.ofSeconds(1))) {
            vendor.breakOnce("BBB/2024-01-08"); // the 18th item: seven of its chunk are fetched before it fails
            JsonObject job = start("bf-fail", "AAA,BBB", "2024-01-01", "2024-01-10", vendor, 10);
            JsonObject failed = await(job, Duration.ofSeconds(60), j -> !j.getBoolean("running"));
            assertEquals("FAILED", failed.getString("status"), failed.toString());
            assertEquals(10, results(failed, "true"), "the first chunk was written; the cut one was not");
            assertEquals(7, ItDatabase.count("SELECT count(*) FROM gate_backfill_fetch WHERE job_instance_id = ?",
                    failed.getJsonNumber("instanceId").longValue()), "the cut chunk's answers are kept");
            // the broken item's grant was given up when its call threw: not left GRANTED to nobody until its lease
            assertEquals(1, ItDatabase.count("SELECT count(*) FROM gate_call WHERE limit_name = 'bf-fail' AND state = "
                    + "'ABANDONED' AND done_at - granted_at < interval '5 seconds'"), "the broken item's call");
            assertEquals(0, ItDatabase.count("SELECT count(*) FROM gate_call WHERE limit_name = 'bf-fail' AND state = "
                    + "'GRANTED'"), "no grant left to nobody");

            Api.Answer restart = Api.post("ops", "/jobs/" + job.getJsonNumber("executionId") + "/restart", null);
            assertEquals(201, restart.status(), restart.body());
            JsonObject done = await(restart.json(), Duration.ofSeconds(60), j -> !j.getBoolean("running"));
            assertEquals("COMPLETED", done.getString("status"), done.toString());
            assertEachFetchedOnce(vendor, 20);
            assertEquals(21, vendor.requests(), "twenty answers and the one broken connection: nothing fetched twice");
            assertEquals(20, results(done, "status = 200"));
            assertEquals(0, ItDatabase.count("SELECT count(*) FROM gate_backfill_fetch WHERE job_instance_id = ?",
                    done.getJsonNumber("instanceId").longValue()), "every kept answer moved to the results");
        }
    }

    @Test
    void aDatabaseCutInTheMiddleOfAJobIsWaitedOutAndNothingIsFetchedTwiceOrLost() throws Exception {
        // a vendor stricter than the limit: its 429s come all through the job, and each must reach the gate
        Api.put("ops", "/limits/bf-cut", LOOSE_RULE);
        try (VendorServer vendor = new VendorServer(10, Duration.ofSeconds(1))) {
            JsonObject job = start("bf-cut", "AAA,BBB", "2024-03-01", "2024-03-30", vendor, 10);
            // just after a checkpoint (done moves only there): the cut falls among the items' waits and calls
            await(job, Duration.ofSeconds(60), j -> j.getJsonObject("progress").getInt("done") >= 20);
            ItDatabase.proxy.cut();
            try {
                Thread.sleep(3_000); // the outage's length, not a wait for something to happen
            } finally {
                ItDatabase.proxy.restore();
            }
            JsonObject done = await(job, Duration.ofSeconds(120), j -> !j.getBoolean("running"));
            assertEquals("COMPLETED", done.getString("status"), done.toString());
            assertEachFetchedOnce(vendor, 60);
            assertEquals(60, results(done, "status = 200"), "every item kept with the vendor's 200");
            assertEquals(vendor.refused(), ItDatabase.count("SELECT count(*) FROM gate_call WHERE limit_name = "
                    + "'bf-cut' AND outcome_status = 429"), "every 429 the vendor gave reached the gate");
            assertEquals(0, ItDatabase.count("SELECT count(*) FROM gate_call WHERE limit_name = 'bf-cut' AND state "
                    + "IN ('WAITING', 'GRANTED')"), "nothing left in the line");
        }
    }

    @ArquillianResource
    ManagementClient management;

    @Test
    void aJobCutByAServerRestartIsRestartedFromItsCheckpointAndFetchesNothingTwice() throws Exception {
        Api.put("ops", "/limits/bf-restart", RULE);
        try (VendorServer vendor = new VendorServer(20, Duration.ofSeconds(1))) {
            JsonObject job = start("bf-restart", "AAA,BBB,CCC,DDD,EEE", "2024-01-01", "2024-02-09", vendor, 10);
            await(job, Duration.ofSeconds(60), j -> j.getJsonObject("progress").getInt("done") >= 40);
            // a graceful restart, as an operator makes one: suspend (running jobs are asked to stop; the item in hand
            // stops waiting for its grant), wait for the job to stop, then reload (every service stops and starts)
            ModelNode suspend = new ModelNode();
            suspend.get("operation").set("suspend");
            suspend.get("address").setEmptyList();
            suspend.get("suspend-timeout").set(30);
            assertEquals("success", management.getControllerClient().execute(suspend).get("outcome").asString());
            long stopped = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (ItDatabase.count("SELECT count(*) FROM job_execution WHERE jobexecutionid = ? AND batchstatus IN "
                    + "('STARTING', 'STARTED', 'STOPPING')", job.getJsonNumber("executionId").longValue()) > 0) {
                assertTrue(System.nanoTime() < stopped, "the suspended server did not stop the job within 30 s");
                Thread.sleep(50);
            }
            ModelNode reload = new ModelNode();
            reload.get("operation").set("reload");
            reload.get("address").setEmptyList();
            management.getControllerClient().execute(reload);
            long down = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (serving()) { // the reload is answered before the server goes down: see it go, then come back
                assertTrue(System.nanoTime() < down, "the server did not go down for its restart within 30 s");
                Thread.sleep(20);
            }
            long end = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (!serving()) {
                assertTrue(System.nanoTime() < end, "the server did not come back within 120 s");
                Thread.sleep(250);
            }
            // the suspended server stopped the job at a checkpoint
            JsonObject cut = Api.get("ops", "/jobs/" + job.getJsonNumber("executionId")).json();
            assertEquals("STOPPED", cut.getString("status"), cut.toString());
            long before = results(cut, "true");
            assertTrue(before < 200, "cut part-way: " + before + " " + cut);
            Api.Answer restart = Api.post("ops", "/jobs/" + job.getJsonNumber("executionId") + "/restart", null);
            assertEquals(201, restart.status(), restart.body());
            JsonObject done = await(restart.json(), Duration.ofSeconds(90), j -> !j.getBoolean("running"));
            assertEquals("COMPLETED", done.getString("status"), done.toString());
            assertEachFetchedOnce(vendor, 200);
            assertEquals(200, results(done, "status = 200"));
        }
    }

    private static boolean serving() {
        try {
            return Api.get("ops", "/limits").status() == 200;
        } catch (IllegalStateException notYet) {
            return false;
        }
    }

    @Test
    void badParametersAreRefusedAndNothingStarts() {
        Api.Answer bad = Api.post("ops", "/jobs/backfill-history", "{\"limit\":\"bf-fast\",\"symbols\":\"A\","
                + "\"from\":\"2024-01-02\",\"to\":\"2024-01-01\",\"vendorUrl\":\"http://127.0.0.1:1\"}");
        assertEquals(400, bad.status(), bad.body());
        assertTrue(bad.isProblem());
        assertTrue(bad.json().getString("detail").startsWith("to "), bad.body());
        assertEquals(400, Api.post("ops", "/jobs/backfill-history", "{\"colour\":\"red\"}").status());
        assertEquals(403, Api.post("web", "/jobs/backfill-history", "{}").status(), "callers do not run jobs");
        assertEquals(404, Api.get("ops", "/jobs/987654").status());
        assertEquals(404, Api.post("ops", "/jobs/987654/stop", null).status());
    }

    private static JsonObject start(String limit, String symbols, String from, String to, VendorServer vendor,
                                    int every) {
        Api.Answer a = Api.post("ops", "/jobs/backfill-history", "{\"limit\":\"" + limit + "\",\"symbols\":\""
                + symbols + "\",\"from\":\"" + from + "\",\"to\":\"" + to + "\",\"vendorUrl\":\"" + vendor.url()
                + "\",\"checkpointEvery\":" + every + "}");
        assertEquals(201, a.status(), a.body());
        return a.json();
    }

    /** Reads the execution until {@code until} holds (or fails after {@code timeout}); answers what it read last. */
    private static JsonObject await(JsonObject job, Duration timeout, Predicate<JsonObject> until)
            throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        String path = "/jobs/" + job.getJsonNumber("executionId");
        while (true) {
            Api.Answer read = Api.get("ops", path); // 503 while the gate is paused: read again
            JsonObject now = read.status() == 200 ? read.json() : null;
            if (now != null && until.test(now)) {
                return now;
            }
            assertTrue(System.nanoTime() < end, "not within " + timeout + ": " + read.body());
            Thread.sleep(200);
        }
    }

    private static void assertEachFetchedOnce(VendorServer vendor, int items) {
        Map<String, Integer> fetched = vendor.fetched();
        assertEquals(items, fetched.size(), "every item fetched");
        fetched.forEach((path, n) -> assertEquals(1, n, path + " fetched " + n + " times"));
    }

    private static long results(JsonObject job, String where) throws Exception {
        return ItDatabase.count("SELECT count(*) FROM gate_backfill_result WHERE job_instance_id = ? AND " + where,
                job.getJsonNumber("instanceId").longValue());
    }
}
