package dev.gate.it;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Nobody bends the shared line: guessing is held per name and address (a removed account's name holds only the
 * program still sending it; guessing names holds an address but not the programs already signed in there), a
 * signed-in page's session never works on the API however its path is spelled, a removed or demoted operator loses
 * the page within the re-check, and one program's Retry-After cannot pause everyone for a day without it being on
 * record. Real HTTP against the deployed EAR (the
 * server re-checks page sessions every 3 s here: arquillian.xml).
 */
class SecurityIT extends GateDeployedAlone {

    private static final String HOST = "127.0.0.1";
    private static final int PORT = 8080;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void fortyWrongPasswordsFromOneAddressAreHeldWhileTheRightOneFromAnotherWorks() throws Exception {
        String attacker = "127.0.0.2"; // loopback too: the server sees another client address
        List<Integer> statuses = new ArrayList<>();
        Raw held = null;
        for (int i = 0; i < 40; i++) {
            Raw r = Raw.from(attacker, "GET", "/gate/api/v1/limits", basic("ops", "guess-" + i), null, null);
            statuses.add(r.status());
            if (r.status() == 429) {
                held = r;
            }
        }
        assertEquals(List.of(401, 401, 401, 401, 401), statuses.subList(0, 5), "the first five are checked");
        assertTrue(statuses.subList(5, 40).stream().allMatch(s -> s == 429), "then held: " + statuses);
        assertTrue(held.header("Content-Type").startsWith("application/problem+json"), held.head());
        long retryAfter = Long.parseLong(held.header("Retry-After"));
        assertTrue(retryAfter >= 1 && retryAfter <= 15, "Retry-After: " + retryAfter);
        assertTrue(held.body().contains("\"status\":429"), held.body());

        Raw rightButHeld = Raw.from(attacker, "GET", "/gate/api/v1/limits", basic("ops", "ops"), null, null);
        assertEquals(429, rightButHeld.status(), "a held address learns nothing, not even of the right password");
        Api.Answer owner = Api.get("ops", "/limits");
        assertEquals(200, owner.status(), "the right password from another address is not locked out");
    }

    @Test
    void aProgramStillSendingARemovedAccountsNameHoldsOnlyItselfNotTheProgramsOnItsHost() throws Exception {
        String host = "127.0.0.3";
        assertEquals(201, Api.put("ops", "/accounts/it-gone", "{\"password\":\"gone-secret\",\"roles\":[\"caller\"]}")
                .status());
        assertEquals(204, Api.delete("ops", "/accounts/it-gone").status());
        // the program that still runs as it-gone renews its calls' leases: two dozen requests at once
        List<Integer> statuses = java.util.Collections.synchronizedList(new ArrayList<>());
        Programs.run(24, 1, (program, i) -> statuses.add(Raw.from(host, "POST", "/gate/api/v1/calls/" + program
                + "/lease", basic("it-gone", "gone-secret"), null, null).status()));
        assertTrue(statuses.stream().allMatch(s -> s == 401 || s == 429), statuses.toString());
        assertEquals(429, Raw.from(host, "GET", "/gate/api/v1/limits", basic("it-gone", "gone-secret"), null, null)
                .status(), "the name that fails is held");
        assertEquals(200, Raw.from(host, "GET", "/gate/api/v1/limits", basic("web", "web"), null, null).status(),
                "another program on its host is not");
    }

    @Test
    void someoneGuessingNamesIsHeldWhileTheProgramsAlreadySignedInBesideItGoOn() throws Exception {
        String host = "127.0.0.4";
        assertEquals(200, Raw.from(host, "GET", "/gate/api/v1/limits", basic("web", "web"), null, null).status());
        for (int i = 0; i < 20; i++) { // twenty names that are no account within a minute
            assertEquals(401, Raw.from(host, "GET", "/gate/api/v1/limits", basic("guessed-" + i, "guess"), null, null)
                    .status(), "name " + i);
        }
        Raw held = Raw.from(host, "GET", "/gate/api/v1/limits", basic("guessed-x", "guess"), null, null);
        assertEquals(429, held.status(), "the address is held for names: " + held.head());
        long retryAfter = Long.parseLong(held.header("Retry-After"));
        assertTrue(retryAfter >= 1 && retryAfter <= 15, "Retry-After: " + retryAfter);
        assertEquals(429, Raw.from(host, "GET", "/gate/api/v1/limits", basic("worker", "worker"), null, null).status(),
                "credentials never seen to work from there are held, unchecked, as any guess");
        assertEquals(200, Raw.from(host, "GET", "/gate/api/v1/limits", basic("web", "web"), null, null).status(),
                "the program already signed in from that address goes on");
        assertEquals(200, Api.get("worker", "/limits").status(), "and no other address is held");
    }

    @Test
    void aSignedInPageSessionIsNeverTakenByTheApiHoweverThePathIsSpelled() throws Exception {
        Page page = Page.signIn("ops", "ops");
        assertEquals(200, page.get("/gate/status.xhtml").statusCode(), "the session works on the page");
        String cookie = page.setCookie;
        assertTrue(cookie.contains("HttpOnly"), cookie);
        assertTrue(cookie.contains("SameSite=Strict"), "a cross-site request does not carry it: " + cookie);
        assertFalse(cookie.contains("Secure"), "plain HTTP here: Secure is for HTTPS only: " + cookie);

        // spellings the server reads as the API: each asks for Basic credentials, whatever the session
        List<String> api = List.of("/gate/api/v1/limits", "/gate/api;x=1/v1/limits", "/gate/%61pi/v1/limits",
                "/gate/api/v1/../v1/limits", "/gate/api/./v1/limits", "/gate/api/v1/accounts/mallory",
                "/gate/api/v1/limits/sec-form/calls", "/gate/api/v1/limits/sec-form/pause");
        // spellings it reads as something else (an escaped escape, an escaped slash): nothing is there
        List<String> notApi = List.of("/gate/%2561pi/v1/limits", "/gate/api%2fv1/limits");
        for (String method : List.of("GET", "POST", "PUT", "DELETE")) {
            for (String path : api) {
                // a form another site posts, with the person's cookie and no Basic credentials
                Raw r = Raw.from(HOST, method, path, null, "JSESSIONID=" + page.session,
                        method.equals("GET") ? null : "class=INTERACTIVE&roles=operator");
                assertEquals(401, r.status(), method + " " + path + " with the page's session: " + r.head());
            }
            for (String path : notApi) {
                Raw r = Raw.from(HOST, method, path, null, "JSESSIONID=" + page.session,
                        method.equals("GET") ? null : "class=INTERACTIVE&roles=operator");
                assertTrue(r.status() == 404 || r.status() == 405 || r.status() == 401 || r.status() == 403,
                        method + " " + path + " with the page's session: " + r.head());
            }
        }
        assertEquals(401, Api.get("mallory:any-password", "/limits").status(), "no account was made by the forms");
        assertEquals(404, Api.get("ops", "/limits/sec-form").status(), "no limit either");
    }

    @Test
    void anOperatorDemotedOrRemovedLosesTheOpenPageWithinTheRecheck() throws Exception {
        assertEquals(201, Api.put("ops", "/accounts/it-demoted",
                "{\"password\":\"demoted-secret\",\"roles\":[\"operator\",\"viewer\"]}").status());
        assertEquals(201, Api.put("ops", "/accounts/it-removed",
                "{\"password\":\"removed-secret\",\"roles\":[\"viewer\"]}").status());
        Page demoted = Page.signIn("it-demoted", "demoted-secret");
        Page removed = Page.signIn("it-removed", "removed-secret");
        assertEquals(200, demoted.get("/gate/status.xhtml").statusCode());
        assertEquals(200, removed.get("/gate/status.xhtml").statusCode());

        assertEquals(204, Api.put("ops", "/accounts/it-demoted",
                "{\"password\":\"demoted-secret\",\"roles\":[\"caller\"]}").status());
        assertEquals(204, Api.delete("ops", "/accounts/it-removed").status());
        // the page refreshes every 2 s; within the re-check the session has the account's new roles, or none
        int demotedNow = until(() -> demoted.get("/gate/status.xhtml").statusCode(), s -> s == 403,
                Duration.ofSeconds(30));
        assertEquals(403, demotedNow, "a caller may not see the page");
        HttpResponse<String> gone = demoted.get("/gate/status.xhtml");
        assertEquals(403, gone.statusCode());
        int removedNow = until(() -> removed.get("/gate/status.xhtml").statusCode(), s -> s == 302,
                Duration.ofSeconds(30));
        assertEquals(302, removedNow, "a removed account's session ends: back to sign in");
        assertTrue(removed.get("/gate/status.xhtml").headers().firstValue("Location").orElse("")
                .contains("/login.xhtml"));
    }

    @Test
    void signingOutEndsTheSessionSoItsCookieIsWorthNothingAfter() throws Exception {
        Page page = Page.signIn("ops", "ops");
        HttpResponse<String> status = page.get("/gate/status.xhtml");
        assertEquals(200, status.statusCode());
        HttpResponse<String> out = page.post("/gate/status.xhtml", "account=account&account%3AsignOut=Sign+out"
                + "&jakarta.faces.ViewState=" + Page.enc(Page.viewState(status.body())));
        assertEquals(302, out.statusCode(), out.body());
        HttpResponse<String> after = page.get("/gate/status.xhtml");
        assertEquals(302, after.statusCode(), "the old session cookie is worth nothing: " + after.headers());
        assertTrue(after.headers().firstValue("Location").orElse("").contains("/login.xhtml"));
    }

    @Test
    void oneProgramsRetryAfterOfADayPausesTheLimitForAtMostItsMaxCoolDownAndIsOnRecord() {
        assertEquals(201, Api.put("ops", "/limits/sec-cap", "{\"calls\":10,\"windowSeconds\":1}").status());
        assertEquals(3600, Api.get("web", "/limits/sec-cap").json().getInt("maxCoolDownSeconds"), "the default");
        long id = Api.post("web", "/limits/sec-cap/calls", "{\"class\":\"INTERACTIVE\"}").json()
                .getJsonNumber("id").longValue();
        assertEquals(404, Api.post("worker", "/calls/" + id + "/outcome",
                "{\"status\":429,\"retryAfterSeconds\":86400}").status(), "another program's call is not its to report");
        Instant before = Instant.now();
        assertEquals(204, Api.post("web", "/calls/" + id + "/outcome",
                "{\"status\":429,\"retryAfterSeconds\":86400}").status());
        JsonObject limit = Api.get("worker", "/limits/sec-cap").json();
        Duration paused = Duration.between(before, Instant.parse(limit.getString("pausedUntil")));
        assertTrue(paused.compareTo(Duration.ofMinutes(59)) > 0 && paused.compareTo(Duration.ofMinutes(61)) < 0,
                "a day asked, an hour taken: " + paused);
        JsonObject by = limit.getJsonObject("slowedBy");
        assertEquals(429, by.getInt("status"), limit.toString());
        assertEquals("web", by.getString("program"), limit.toString());
        assertEquals(id, by.getJsonNumber("call").longValue(), limit.toString());

        JsonObject action = Api.get("ops", "/actions").json().getJsonArray("actions").stream()
                .map(v -> v.asJsonObject()).filter(a -> a.getString("target").equals("limit sec-cap")
                        && a.getString("action").equals("cool-down")).findFirst().orElseThrow(
                        () -> new AssertionError("the cool-down is in /actions"));
        assertEquals("web", action.getString("actor"));
        assertTrue(action.getString("detail").contains("call " + id) && action.getString("detail")
                .contains("taken as 3600 s"), action.toString());

        // longer only by an operator: a limit declared so, or a pause
        assertEquals(200, Api.put("ops", "/limits/sec-cap", "{\"calls\":10,\"windowSeconds\":1,"
                + "\"maxCoolDownSeconds\":7200}").status());
        assertEquals(7200, Api.get("web", "/limits/sec-cap").json().getInt("maxCoolDownSeconds"));
        assertEquals(400, Api.put("ops", "/limits/sec-cap", "{\"calls\":10,\"windowSeconds\":1,"
                + "\"maxCoolDownSeconds\":0}").status());
        Api.post("ops", "/limits/sec-cap/resume", null);
    }

    @Test
    void anUnknownPathOrMethodSaysNothingOfTheServer() {
        Api.Answer unknown = Api.get("web", "/no-such-thing");
        assertEquals(404, unknown.status());
        assertTrue(unknown.isProblem(), unknown.contentType());
        OutageIT.saysNothingOfTheInside(unknown);
        Api.Answer method = Api.call("web", "PATCH", "/limits", "{}");
        assertEquals(405, method.status(), method.body());
        OutageIT.saysNothingOfTheInside(method);
    }

    private static <T> T until(Supplier<T> read, java.util.function.Predicate<T> done, Duration within)
            throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        T last = read.get();
        while (!done.test(last) && System.nanoTime() < deadline) {
            Thread.sleep(250);
            last = read.get();
        }
        return last;
    }

    private static String basic(String name, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((name + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /** A request from a chosen loopback address, its path sent exactly as written (no client normalizes it). */
    record Raw(int status, String head, String body) {

        static Raw from(String address, String method, String path, String authorization, String cookie,
                        String form) throws IOException {
            try (Socket s = new Socket()) {
                s.bind(new InetSocketAddress(address, 0));
                s.connect(new InetSocketAddress(HOST, PORT), 5000);
                s.setSoTimeout(30_000);
                StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: " + HOST + ":"
                        + PORT + "\r\nConnection: close\r\n");
                if (authorization != null) {
                    request.append("Authorization: ").append(authorization).append("\r\n");
                }
                if (cookie != null) {
                    request.append("Cookie: ").append(cookie).append("\r\n");
                }
                byte[] body = form == null ? new byte[0] : form.getBytes(StandardCharsets.UTF_8);
                if (form != null) {
                    request.append("Origin: https://elsewhere.example\r\n")
                            .append("Content-Type: application/x-www-form-urlencoded\r\n");
                }
                if (!method.equals("GET")) {
                    request.append("Content-Length: ").append(body.length).append("\r\n");
                }
                request.append("\r\n");
                OutputStream out = s.getOutputStream();
                out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
                out.write(body);
                out.flush();
                InputStream in = s.getInputStream();
                ByteArrayOutputStream all = new ByteArrayOutputStream();
                in.transferTo(all);
                String text = all.toString(StandardCharsets.UTF_8);
                int end = text.indexOf("\r\n\r\n");
                String head = end < 0 ? text : text.substring(0, end);
                return new Raw(Integer.parseInt(head.split(" ", 3)[1]), head, end < 0 ? "" : text.substring(end + 4));
            }
        }

        String header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).equalsIgnoreCase(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            fail("no " + name + " in " + head);
            return null;
        }
    }

    /** A person signed in on the status page: the sign-in form posted as a browser would, its session cookie kept. */
    static final class Page {
        final String session;
        final String setCookie;

        private Page(String session, String setCookie) {
            this.session = session;
            this.setCookie = setCookie;
        }

        static Page signIn(String name, String password) throws Exception {
            HttpResponse<String> form = HTTP.send(HttpRequest.newBuilder(URI.create(base() + "/gate/login.xhtml"))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            String first = sessionOf(form);
            String body = String.join("&", "signIn=signIn", "signIn%3Aname=" + enc(name),
                    "signIn%3Apassword=" + enc(password), "signIn%3Asubmit=Sign+in",
                    "jakarta.faces.ViewState=" + enc(viewState(form.body())));
            HttpResponse<String> signedIn = HTTP.send(HttpRequest.newBuilder(URI.create(base() + "/gate/login.xhtml"))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .header("Cookie", "JSESSIONID=" + first)
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(302, signedIn.statusCode(), "signed in and sent to the status page: " + signedIn.body());
            String setCookie = signedIn.headers().allValues("Set-Cookie").stream()
                    .filter(c -> c.startsWith("JSESSIONID=")).findFirst().orElseThrow(
                            () -> new AssertionError("a new session id at sign-in: " + signedIn.headers()));
            return new Page(sessionOf(signedIn), setCookie);
        }

        static String viewState(String page) {
            Matcher state = Pattern.compile("name=\"jakarta.faces.ViewState\"[^>]*value=\"([^\"]+)\"").matcher(page);
            assertTrue(state.find(), page);
            return state.group(1);
        }

        /** A form posted on the page, with the session's cookie. */
        HttpResponse<String> post(String path, String form) throws Exception {
            return HTTP.send(HttpRequest.newBuilder(URI.create(base() + path))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .header("Cookie", "JSESSIONID=" + session)
                    .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<String> get(String path) {
            try {
                return HTTP.send(HttpRequest.newBuilder(URI.create(base() + path)).header("Cookie",
                        "JSESSIONID=" + session).GET().build(), HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        private static String sessionOf(HttpResponse<?> r) {
            for (String c : r.headers().allValues("Set-Cookie")) {
                if (c.startsWith("JSESSIONID=")) {
                    return c.substring("JSESSIONID=".length(), c.indexOf(';') < 0 ? c.length() : c.indexOf(';'));
                }
            }
            throw new AssertionError("no session cookie: " + r.headers());
        }

        private static String base() {
            return "http://" + HOST + ":" + PORT;
        }

        static String enc(String s) {
            return URLEncoder.encode(s, StandardCharsets.UTF_8);
        }
    }
}
