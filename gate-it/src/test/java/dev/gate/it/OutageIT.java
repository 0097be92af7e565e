package dev.gate.it;

import jakarta.json.JsonObject;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.File;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Over real HTTP: when the server loses its database, calls are paused (503), and the gate comes back by itself. */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class OutageIT {

    @Deployment(testable = false)
    static EnterpriseArchive gateEar() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, new File(System.getProperty("gate.ear")));
    }

    @Test
    void withoutItsDatabaseTheApiSaysCallsArePausedAndResumesWhenItIsBack() throws Exception {
        Api.put("ops", "/limits/http-outage", "{\"calls\":5,\"windowSeconds\":1}");
        assertEquals(201, Api.post("web", "/limits/http-outage/calls", "{\"class\":\"MANUAL\"}").status());

        ItDatabase.proxy.cut();
        try {
            long t0 = System.nanoTime();
            Api.Answer paused = Api.post("web", "/limits/http-outage/calls", "{\"class\":\"MANUAL\"}");
            Duration answeredIn = Duration.ofNanos(System.nanoTime() - t0);
            assertEquals(503, paused.status(), paused.body());
            assertTrue(paused.isProblem(), paused.contentType());
            assertTrue(paused.raw().headers().firstValue("Retry-After").isPresent(), "Retry-After is sent");
            JsonObject problem = paused.json();
            assertEquals("Calls are paused", problem.getString("title"));
            assertTrue(problem.getString("detail").startsWith("calls are paused"), problem.getString("detail"));
            assertTrue(answeredIn.compareTo(Duration.ofSeconds(2)) < 0, "answered in " + answeredIn);
            assertEquals(503, Api.get("web", "/limits").status(), "the status is paused too, not a guess");
        } finally {
            ItDatabase.proxy.restore();
        }
        long t1 = System.nanoTime();
        int status = 0;
        while (System.nanoTime() - t1 < Duration.ofSeconds(10).toNanos()) {
            status = Api.post("web", "/limits/http-outage/calls", "{\"class\":\"MANUAL\"}").status();
            if (status == 201) {
                break;
            }
            Thread.sleep(100);
        }
        assertEquals(201, status, "the gate resumed by itself");
        Duration resumedIn = Duration.ofNanos(System.nanoTime() - t1);
        System.out.println("outage over HTTP: resumed " + resumedIn.toMillis() + " ms after the database came back");
        assertTrue(resumedIn.compareTo(Duration.ofSeconds(2)) < 0, "resumed after " + resumedIn);
    }
}
