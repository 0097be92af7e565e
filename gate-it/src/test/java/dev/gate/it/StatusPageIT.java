package dev.gate.it;

import jakarta.json.JsonObject;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
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
 * limit and resumes it; the page says calls are paused while the database is cut. A screenshot of each state goes to
 * {@code target/screenshots/}. Skipped, with the reason, where no browser is installed.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class StatusPageIT {

    private static final String PAGE = "http://127.0.0.1:8080/gate/";
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path DRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SHOTS = Path.of("target", "screenshots");

    private ChromeDriver browser;

    @Deployment(testable = false)
    static EnterpriseArchive gateEar() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, new File(System.getProperty("gate.ear")));
    }

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
        assertTrue(browser.getPageSource().contains("Wrong name or password."));
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

        browser.findElement(By.cssSelector("input[value='Sign out']")).click();
        waitFor("the sign-in page", b -> b.getCurrentUrl().contains("login.xhtml"));
        browser.get(PAGE);
        assertTrue(browser.getCurrentUrl().contains("login.xhtml"), "signed out means signed out");
    }

    @Test
    void anOperatorPausesALimitSeesNewCallsWaitAndResumesIt() throws Exception {
        Api.put("ops", "/limits/page-op",
                "{\"calls\":100,\"windowSeconds\":1,\"rules\":[{\"calls\":1000,\"windowSeconds\":60}]}");
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

    private void waitFor(String what, Function<ChromeDriver, Boolean> condition) {
        new WebDriverWait(browser, Duration.ofSeconds(20)).withMessage(what)
                .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(d -> condition.apply((ChromeDriver) d));
    }

    private void shot(String name) throws Exception {
        File png = browser.getScreenshotAs(OutputType.FILE);
        Files.copy(png.toPath(), SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }
}
