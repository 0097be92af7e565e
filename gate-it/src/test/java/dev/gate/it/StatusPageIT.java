package dev.gate.it;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The status page in a real browser (headless Chromium driven by Selenium) against the running server: a person signs
 * in on a page, sees the line as bars that move as calls join, sees a starving class marked; an operator pauses a
 * limit and resumes it; the page says calls are paused while the database is cut; an operator watches a backfill's
 * progress bar and stops and restarts it. A screenshot of each state goes to
 * {@code target/screenshots/}. Skipped, with the reason, where no browser is installed.
 */
class StatusPageIT extends GateDeployedAlone {

    private static final String PAGE = "http://127.0.0.1:8080/gate/";
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path DRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SHOTS = Path.of("target", "screenshots");

    private ChromeDriver browser;

    @BeforeEach
    void browser() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER),
                "no browser here: install Debian's chromium and chromium-driver (.ci/run does) to run the page tests");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000");
        browser = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile()).build(),
                options);
        Files.createDirectories(SHOTS);
    }

    @AfterEach
    void close() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void aViewerSignsInAndSeesTheLineAsBarsThatMoveAndAStarvingClassMarked() throws Exception {
        assertEquals(201, Api.put("ops", "/accounts/it-viewer",
                "{\"password\":\"viewer-secret\",\"roles\":[\"viewer\"]}").status());
        Api.put("ops", "/limits/page-line", "{\"calls\":1,\"windowSeconds\":60,\"starvingAfterSeconds\":3}");
        Api.post("web", "/limits/page-line/calls", "{\"class\":\"SCHEDULED\"}"); // takes the minute's slot

        browser.get(PAGE);
        assertTrue(browser.getCurrentUrl().contains("login.xhtml"), "a person is sent to the sign-in page: "
                + browser.getCurrentUrl());
        signIn("it-viewer", "wrong");
        // the click returns once the form is sent, not always once the answer's page is shown: wait for it
        waitFor("the sign-in page to say the name or password is wrong",
                b -> b.getPageSource().contains("Wrong name or password."));
        signIn("it-viewer", "viewer-secret");
        waitFor("the status page", b -> !b.findElements(panel("page-line")).isEmpty());
        assertEquals("0", bar("page-line", "BACKFILL").getAttribute("data-waiting"));
        assertTrue(browser.findElements(By.cssSelector("input[value='Pause']")).isEmpty(), "a viewer has no buttons");

        for (int i = 0; i < 3; i++) {
            Api.post("worker", "/limits/page-line/calls", "{\"class\":\"BACKFILL\"}");
        }
        waitFor("the BACKFILL bar to show 3 waiting, without a reload",
                b -> "3".equals(bar("page-line", "BACKFILL").getAttribute("data-waiting")));
        assertTrue(bar("page-line", "BACKFILL").getText().startsWith("BACKFILL 3, oldest"),
                bar("page-line", "BACKFILL").getText());
        shot("1-viewer-sees-the-line");
        // this limit marks a class starving after 3 s (its starvingAfterSeconds; the server's default is 10 min)
        waitFor("the BACKFILL bar to be marked as starving",
                b -> bar("page-line", "BACKFILL").findElement(By.cssSelector(".bar")).getAttribute("class")
                        .contains("starving"));
        assertTrue(bar("page-line", "BACKFILL").getText().endsWith("(starving)"));
        shot("2-starving-backfill");

        // calls held by a pause, then granted when it ends: the viewer sees the bar rise and fall
        Api.put("ops", "/limits/page-flow", "{\"calls\":100,\"windowSeconds\":1}");
        Api.post("ops", "/limits/page-flow/pause", "{\"seconds\":120}");
        for (int i = 0; i < 2; i++) {
            Api.post("web", "/limits/page-flow/calls", "{\"class\":\"INTERACTIVE\"}");
        }
        waitFor("the INTERACTIVE bar to rise to 2",
                b -> "2".equals(bar("page-flow", "INTERACTIVE").getAttribute("data-waiting")));
        Api.post("ops", "/limits/page-flow/resume", null);
        waitFor("the INTERACTIVE bar to fall to 0 as both are granted",
                b -> "0".equals(bar("page-flow", "INTERACTIVE").getAttribute("data-waiting")));

        browser.findElement(By.cssSelector("input[value='Sign out']")).click();
        waitFor("the sign-in page", b -> b.getCurrentUrl().contains("login.xhtml"));
        browser.get(PAGE);
        assertTrue(browser.getCurrentUrl().contains("login.xhtml"), "signed out means signed out");
    }

    @Test
    void anOperatorPausesALimitSeesNewCallsWaitAndResumesIt() throws Exception {
        Api.put("ops", "/limits/page-op",
                "{\"calls\":100,\"windowSeconds\":1,\"rules\":[{\"calls\":1000,\"windowSeconds\":60}]}");
        // a panel after page-op's: a value typed into any panel but the last once never reached the server
        Api.put("ops", "/limits/page-op-zz", "{\"calls\":5,\"windowSeconds\":1}");
        browser.get(PAGE);
        signIn("ops", "ops");
        waitFor("the status page", b -> !b.findElements(panel("page-op")).isEmpty());

        WebElement pause = browser.findElement(panel("page-op")).findElement(By.cssSelector("input[value='Pause']"));
        assertTrue(pause.getAttribute("onclick").contains("confirm("), "a pause asks first");
        confirmNext();
        pause.click();
        waitFor("the panel to show the pause", b -> b.findElement(panel("page-op")).getAttribute("class")
                .contains("paused"));
        assertTrue(browser.findElement(panel("page-op")).getText().contains("paused 9 m"),
                browser.findElement(panel("page-op")).getText());
        String waiting = Api.post("web", "/limits/page-op/calls?waitSeconds=1", "{\"class\":\"INTERACTIVE\"}").json()
                .getString("state");
        assertEquals("WAITING", waiting, "no grant while paused");
        assertEquals(1, Api.get("ops", "/limits/page-op").json().getJsonObject("waiting").getInt("INTERACTIVE"));
        waitFor("the INTERACTIVE bar to show the waiting call",
                b -> "1".equals(bar("page-op", "INTERACTIVE").getAttribute("data-waiting")));
        shot("3-operator-paused-a-limit");

        confirmNext();
        browser.findElement(panel("page-op")).findElement(By.cssSelector("input[value='Resume']")).click();
        waitFor("the pause to end", b -> !b.findElement(panel("page-op")).getAttribute("class").contains("paused"));
        List<String> actions = browser.findElements(By.cssSelector(".actions li")).stream()
                .map(WebElement::getText).toList();
        assertTrue(actions.get(0).contains("ops: resume limit page-op"), actions.toString());
        assertTrue(actions.get(1).contains("ops: pause limit page-op"), actions.toString());
        waitFor("the waiting call to be granted",
                b -> Api.get("ops", "/limits/page-op").json().getJsonObject("waiting").getInt("INTERACTIVE") == 0);
        waitFor("the INTERACTIVE bar to fall as its call is granted",
                b -> "0".equals(bar("page-op", "INTERACTIVE").getAttribute("data-waiting")));
        waitFor("a gauge per rule, each counting the send", b -> b.findElement(panel("page-op")).getText()
                .contains("1 of 100 used in the last 1 s") || b.findElement(panel("page-op")).getText()
                .contains("1 of 1000 used in the last 60 s"));
        assertEquals(2, browser.findElement(panel("page-op")).findElements(By.cssSelector(".gauge")).size());
        waitFor("the send to show in the panel's chart of the last 10 minutes", b -> "1".equals(
                b.findElement(panel("page-op")).findElement(By.cssSelector("svg.sends")).getAttribute("data-total")));
        assertTrue(browser.findElement(panel("page-op")).getText().contains("cool-down ladder 2 s, 5 s, 15 s, 30 s, 1 min"),
                browser.findElement(panel("page-op")).getText());

        // the vendor says slow down: the panel says what started the cool-down
        JsonObject granted = Api.post("web", "/limits/page-op/calls?waitSeconds=5", "{\"class\":\"INTERACTIVE\"}").json();
        assertEquals(204, Api.post("web", "/calls/" + granted.getJsonNumber("id").longValue() + "/outcome",
                "{\"status\":429,\"retryAfterSeconds\":30}").status());
        waitFor("the cool-down and its cause", b -> b.findElement(panel("page-op")).getText()
                .contains("(cool-down step 1 of 5, after a 429"));
        shot("5-cool-down-after-a-429");

        // change the rule, cancel one waiting call, remove a limit: each from the panel's controls
        WebElement controls = browser.findElement(panel("page-op")).findElement(By.cssSelector("details.more"));
        controls.findElement(By.tagName("summary")).click();
        controls.findElement(By.cssSelector("input[aria-label='calls']")).sendKeys("50");
        controls.findElement(By.cssSelector("input[aria-label='window seconds']")).sendKeys("1");
        confirmNext();
        controls.findElement(By.cssSelector("input[value='Change rule']")).click();
        waitFor("the new rule", b -> b.findElement(panel("page-op")).getText().contains("50 per 1 s"));
        assertEquals(50, Api.get("ops", "/limits/page-op").json().getInt("calls"));

        controls = browser.findElement(panel("page-op")).findElement(By.cssSelector("details.more"));
        controls.findElement(By.tagName("summary")).click();
        WebElement declaration = controls.findElement(By.cssSelector("textarea[name='declaration']"));
        assertTrue(declaration.getAttribute("value").contains("\"calls\": 50"), declaration.getAttribute("value"));
        declaration.clear();
        declaration.sendKeys("{\"calls\": 40, \"windowSeconds\": 1, \"minIntervalMs\": 5, \"starvingAfterSeconds\": 120}");
        confirmNext();
        controls.findElement(By.cssSelector("input[value='Change rules and options']")).click();
        waitFor("the new options", b -> b.findElement(panel("page-op")).getText().contains("minimum spacing 5 ms"));
        assertTrue(browser.findElement(panel("page-op")).getText().contains("40 per 1 s; starving after 2 min"),
                browser.findElement(panel("page-op")).getText());

        long waitingCall = Api.post("worker", "/limits/page-op/calls", "{\"class\":\"BACKFILL\"}").json()
                .getJsonNumber("id").longValue(); // waits: the limit cools down
        controls = browser.findElement(panel("page-op")).findElement(By.cssSelector("details.more"));
        controls.findElement(By.tagName("summary")).click();
        controls.findElement(By.cssSelector("input[aria-label='id of a waiting call']"))
                .sendKeys(String.valueOf(waitingCall));
        confirmNext();
        controls.findElement(By.cssSelector("input[value='Cancel call']")).click();
        waitFor("the call cancelled", b -> "CANCELLED".equals(
                Api.get("worker", "/calls/" + waitingCall).json().getString("state")));

        Api.put("ops", "/limits/page-gone", "{\"calls\":5,\"windowSeconds\":1}");
        browser.navigate().refresh();
        waitFor("the new limit's panel", b -> !b.findElements(panel("page-gone")).isEmpty());
        controls = browser.findElement(panel("page-gone")).findElement(By.cssSelector("details.more"));
        controls.findElement(By.tagName("summary")).click();
        confirmNext();
        controls.findElement(By.cssSelector("input[value='Remove limit']")).click();
        waitFor("the panel to go", b -> b.findElements(panel("page-gone")).isEmpty());
        assertEquals(404, Api.get("ops", "/limits/page-gone").status());
        List<String> recent = browser.findElements(By.cssSelector(".actions li")).stream()
                .map(WebElement::getText).toList();
        assertTrue(recent.get(0).contains("ops: remove-limit limit page-gone"), recent.toString());
        assertTrue(recent.stream().anyMatch(a -> a.contains("ops: cancel-call call " + waitingCall)), recent.toString());
        assertTrue(recent.stream().anyMatch(a -> a.contains("ops: change-limit limit page-op (50 per 1 s)")),
                recent.toString());
        assertTrue(recent.stream().anyMatch(a -> a.contains("ops: change-limit limit page-op (40 per 1 s)")),
                recent.toString());
    }

    @Test
    void aDailyQuotaOnTheVendorsCalendarShowsTodaysUseAndWhenItResets() throws Exception {
        Api.put("ops", "/limits/page-daily", "{\"calls\":10000,\"windowSeconds\":86400,"
                + "\"aligned\":{\"zone\":\"America/Los_Angeles\",\"at\":\"00:00\"}}");
        JsonObject call = Api.post("web", "/limits/page-daily/calls?waitSeconds=10", "{\"class\":\"INTERACTIVE\"}")
                .json();
        assertEquals("GRANTED", call.getString("state"), call.toString());
        browser.get(PAGE);
        signIn("ops", "ops");
        waitFor("the daily gauge", b -> !b.findElements(panel("page-daily")).isEmpty()
                && b.findElement(panel("page-daily")).getText().contains("1 of 10,000 used today, resets in "));
        assertTrue(browser.findElement(panel("page-daily")).getText().contains("(00:00 America/Los_Angeles)"),
                browser.findElement(panel("page-daily")).getText());
    }

    @Test
    void whileTheDatabaseIsCutThePageSaysCallsArePausedAndRecovers() throws Exception {
        Api.put("ops", "/limits/page-cut", "{\"calls\":5,\"windowSeconds\":1}");
        browser.get(PAGE);
        signIn("ops", "ops");
        waitFor("the status page", b -> !b.findElements(panel("page-cut")).isEmpty());
        ItDatabase.proxy.cut();
        try {
            waitFor("the banner", b -> !b.findElements(By.cssSelector(".banner")).isEmpty());
            assertTrue(browser.findElement(By.cssSelector(".banner")).getText()
                    .startsWith("Database unavailable: calls are paused"));
            assertTrue(!browser.findElements(panel("page-cut")).isEmpty(), "the last panels stay");
            shot("4-database-unavailable");
        } finally {
            ItDatabase.proxy.restore();
        }
        waitFor("the banner to go", b -> b.findElements(By.cssSelector(".banner")).isEmpty());
    }

    @Test
    void anOperatorWatchesABackfillsProgressAndStopsAndRestartsItFromThePage() throws Exception {
        Api.put("ops", "/limits/page-job", "{\"calls\":5,\"windowSeconds\":1}");
        try (dev.gate.dev.VendorServer vendor = new dev.gate.dev.VendorServer(5, Duration.ofSeconds(1))) {
            Api.Answer started = Api.post("ops", "/jobs/backfill-history", "{\"limit\":\"page-job\","
                    + "\"symbols\":\"AAA,BBB\",\"from\":\"2024-01-01\",\"to\":\"2024-02-19\",\"vendorUrl\":\""
                    + vendor.url() + "\",\"checkpointEvery\":5}");
            assertEquals(201, started.status(), started.body());
            String id = started.json().getJsonNumber("executionId").toString();
            browser.get(PAGE);
            signIn("ops", "ops");
            By job = By.cssSelector(".job[data-execution='" + id + "']");
            waitFor("the job's row, moving", b -> !b.findElements(job).isEmpty() && Integer.parseInt(b.findElement(job)
                    .findElement(By.cssSelector("[role=progressbar]")).getAttribute("aria-valuenow")) > 0);
            String text = browser.findElement(job).getText();
            assertTrue(text.contains("STARTED") && text.contains("of 100 items") && text.contains("per min"), text);
            assertTrue(text.contains("limit page-job: AAA,BBB from 2024-01-01 to 2024-02-19"), text);
            ((JavascriptExecutor) browser).executeScript("arguments[0].scrollIntoView()", browser.findElement(job));
            shot("5-backfill-running");

            confirmNext();
            browser.findElement(job).findElement(By.cssSelector("input[value='Stop']")).click();
            waitFor("the job to stop", b -> "STOPPED".equals(b.findElement(job).getAttribute("data-status")));
            confirmNext();
            browser.findElement(job).findElement(By.cssSelector("input[value='Restart']")).click();
            waitFor("a new execution of the job", b -> b.findElements(By.cssSelector(".job")).stream()
                    .anyMatch(e -> !id.equals(e.getAttribute("data-execution"))
                            && "STARTED".equals(e.getAttribute("data-status"))));
            String again = browser.findElements(By.cssSelector(".job")).stream()
                    .filter(e -> "STARTED".equals(e.getAttribute("data-status"))).findFirst().orElseThrow()
                    .getAttribute("data-execution");
            assertEquals(200, Api.post("ops", "/jobs/" + again + "/stop", null).status()); // leave nothing running
            waitFor("the restarted job to stop", b -> "STOPPED".equals(b.findElement(
                    By.cssSelector(".job[data-execution='" + again + "']")).getAttribute("data-status")));
        }
    }

    @Test
    void aClickRightAfterThePanelsReorderActsOnTheLimitItNamed() throws Exception {
        Api.put("ops", "/limits/page-race-a", "{\"calls\":100,\"windowSeconds\":1}");
        Api.put("ops", "/limits/page-race-b", "{\"calls\":1,\"windowSeconds\":60}");
        browser.get(PAGE);
        signIn("ops", "ops");
        waitFor("both panels", b -> !b.findElements(panel("page-race-a")).isEmpty()
                && !b.findElements(panel("page-race-b")).isEmpty());
        // the page as drawn: page-race-b (nothing waiting) after page-race-a; an open panel holds the refresh back
        browser.findElement(panel("page-race-a")).findElement(By.cssSelector("details.more summary")).click();
        // the line changes: page-race-b has calls waiting, so it sorts before every idle limit from the next read on
        for (int i = 0; i < 4; i++) {
            Api.post("worker", "/limits/page-race-b/calls", "{\"class\":\"BACKFILL\",\"leaseSeconds\":300}");
        }
        // a refresh reaches the server (it reads the panels again, in the new order); its answer is not drawn yet
        ((JavascriptExecutor) browser).executeAsyncScript("var done = arguments[arguments.length - 1];"
                + "faces.ajax.request(document.getElementById('refresh:tick'), null, {render: '@none',"
                + " onevent: function (e) { if (e.status === 'success') { done(true); } }});");
        String before = Api.get("ops", "/actions").body();
        confirmNext();
        browser.findElement(panel("page-race-a")).findElement(By.cssSelector("input[value='Pause']")).click();
        waitFor("a new action on record", b -> !Api.get("ops", "/actions").body().equals(before));
        JsonObject newest = Api.get("ops", "/actions").json().getJsonArray("actions").getJsonObject(0);
        assertEquals("pause limit page-race-a", newest.getString("action") + " " + newest.getString("target"),
                "the button of page-race-a's panel paused page-race-a, not the limit in its row now");
        assertTrue(!Api.get("ops", "/limits/page-race-a").json().isNull("pausedUntil"));
        Api.post("ops", "/limits/page-race-a/resume", null);
        Api.post("ops", "/programs/worker/drain?limit=page-race-b", null);
    }

    private void signIn(String name, String password) {
        browser.findElement(By.id("signIn:name")).clear();
        browser.findElement(By.id("signIn:name")).sendKeys(name);
        browser.findElement(By.id("signIn:password")).sendKeys(password);
        browser.findElement(By.id("signIn:submit")).click();
    }

    /** The page asks before an operator's action; the test says yes to the next question. */
    private void confirmNext() {
        ((JavascriptExecutor) browser).executeScript("window.confirm = function () { return true; };");
    }

    private static By panel(String limit) {
        return By.cssSelector("section.panel[data-name='" + limit + "']");
    }

    private WebElement bar(String limit, String callClass) {
        return browser.findElement(panel(limit)).findElement(By.cssSelector(".column[data-class='" + callClass + "']"));
    }

    private void waitFor(String what, Function<ChromeDriver, Boolean> condition) throws Exception {
        try {
            new WebDriverWait(browser, Duration.ofSeconds(20)).withMessage(what)
                    .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                    .until(d -> condition.apply((ChromeDriver) d));
        } catch (org.openqa.selenium.TimeoutException e) {
            shot("failed-" + what.replaceAll("[^A-Za-z0-9]+", "-")); // what the page showed instead
            throw e;
        }
    }

    private void shot(String name) throws Exception {
        File png = browser.getScreenshotAs(OutputType.FILE);
        Files.copy(png.toPath(), SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }
}
