package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.LimitSpec;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A keyed limit made plain takes its keys' waiting calls out of the line with the change, told and recorded, as a
 * change takes out a call costlier than its rules: they would go by their keys' rules alone, which its own rule does
 * not count (found as issue 52's histories were given the change of kind: on the old code both were granted after the
 * change, on their keys' lines, and the plain limit's log held none of their sends). A plain limit made keyed keeps its
 * calls of one unit ({@link CostTest}).
 */
class KindChangeTest extends OnOneCopy {

    private static final LimitSpec TEN = LimitSpec.of(10, Duration.ofSeconds(1));
    private static final LimitSpec FIVE = LimitSpec.of(5, Duration.ofSeconds(1));

    @Test
    void aLimitMadePlainTakesItsKeysCallsOutOfTheLine() throws Exception {
        gate.limits().put("vendor", TEN);
        gate.limits().put("orders", FIVE.withKeyed(true).withParent("vendor"));
        gate.operators().pause("vendor", Duration.ofSeconds(2), "ops");
        long one = submit("orders", CallOptions.NONE.withLimitKey("k1"));
        long two = submit("orders", CallOptions.NONE.withLimitKey("k2"));
        gate.limits().put("orders", FIVE, "ops");
        assertEquals("CANCELLED", copies.state(one), "made plain: a key's call would go by the key's rule alone");
        assertEquals("CANCELLED", copies.state(two));
        assertEquals(1, copies.count("SELECT count(*) FROM gate_action WHERE action = 'cancel-call' "
                + "AND detail LIKE '2 waiting calls of its keys%'"), "recorded with the change");
        gate.operators().resume("vendor", "ops");
        long plain = submit("orders", CallOptions.NONE);
        GateCopies.await("the plain limit's call granted", Duration.ofSeconds(5),
                () -> copies.state(plain).equals("GRANTED"));
        assertEquals(1, copies.sends("orders").size(), "its own rule counts its sends");
        assertEquals(0, copies.sends("orders~k1").size() + copies.sends("orders~k2").size(),
                "no key sent after the change");
    }

    private long submit(String limit, CallOptions options) throws Exception {
        return gate.programs().submit("p", limit, CallClass.SCHEDULED, options, null).call().id();
    }
}
