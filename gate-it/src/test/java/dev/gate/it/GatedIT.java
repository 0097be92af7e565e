package dev.gate.it;

import dev.gate.api.Gate;
import dev.gate.api.PersonWaiting;
import dev.gate.dev.LimitRow;
import dev.gate.dev.SendLog;
import dev.gate.it.gated.GatedCaller;
import dev.gate.it.gated.GatedVendor;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.ws.rs.core.Response;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.OperateOnDeployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import javax.naming.InitialContext;
import java.io.IOException;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code @Gated} in an application deployed beside the gate: a method waits in the line and reports what it returned
 * or threw, with no permit in the application's code. The gate's tables are the judge.
 */
@ExtendWith(ArquillianExtension.class)
class GatedIT {

    @Deployment(name = "gate", order = 1, testable = false)
    static EnterpriseArchive gateEar() {
        return BuiltEar.read();
    }

    @Deployment(name = "gated", order = 2)
    static WebArchive gated() {
        return ShrinkWrap.create(WebArchive.class, "gated.war")
                .addPackage(Gate.class.getPackage())
                .addClasses(GatedVendor.class, GatedCaller.class, ServerTables.class, LimitRow.class, SendLog.class,
                        SendLog.Send.class);
    }

    private static GatedCaller caller() throws Exception {
        return (GatedCaller) new InitialContext().lookup("java:module/GatedCaller");
    }

    @Test
    @OperateOnDeployment("gated")
    void aGatedMethodReturningA429ResponsePausesTheLimitForEveryone() throws Exception {
        ServerTables.limit("it-gated-429", 10, Duration.ofSeconds(1));
        Response r = caller().rateLimited();
        assertEquals(429, r.getStatus());
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_call WHERE limit_name = 'it-gated-429' "
                + "AND state = 'DONE' AND outcome_status = 429 AND outcome_retry_after_s = 7"));
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_slot WHERE limit_name = 'it-gated-429' "
                + "AND paused_until > clock_timestamp() + interval '5 seconds'"), "paused for the 7 s it asked");
    }

    @Test
    @OperateOnDeployment("gated")
    void aGatedMethodThrowingAnIoExceptionEndsItsCallAbandonedAtOnce() throws Exception {
        ServerTables.limit("it-gated-io", 10, Duration.ofSeconds(1));
        assertThrows(IOException.class, () -> caller().broken());
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_call WHERE limit_name = 'it-gated-io' "
                + "AND state = 'ABANDONED'"), "given up at once, not at its lease's end");
    }

    @Test
    @OperateOnDeployment("gated")
    void aPlainReturnIsA200AndAPersonWaitingMakesTheCallInteractive() throws Exception {
        ServerTables.limit("it-gated-ok", 10, Duration.ofSeconds(1));
        assertEquals("history of store-1", caller().fetch("store-1"));
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_call WHERE limit_name = 'it-gated-ok' "
                + "AND state = 'DONE' AND outcome_status = 200 AND call_class = 4 AND concurrency_key = 'store-1'"),
                "BACKFILL as declared, the key from the parameter");
        CDI.current().select(PersonWaiting.class).get().mark(); // this request: a person waits
        caller().fetch("store-2");
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_call WHERE limit_name = 'it-gated-ok' "
                + "AND call_class = 0 AND concurrency_key = 'store-2'"), "INTERACTIVE while a person waits");
        assertTrue(ServerTables.count("SELECT count(*) FROM gate_call WHERE limit_name = 'it-gated-ok'") == 2);
    }
}
