package dev.gate.ejb;

import dev.gate.client.GateException;
import dev.gate.client.GateLimits;
import dev.gate.client.LimitSpec;
import dev.gate.line.CoolDownLadder;
import dev.gate.line.LimitName;
import dev.gate.line.LimitOptions;
import dev.gate.line.Pace;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.EJB;
import jakarta.ejb.Remote;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

/** The {@link GateLimits} view: an operator's limit declarations, checked by the same rules as over HTTP. */
@Singleton
@Remote(GateLimits.class)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class GateLimitsBean implements GateLimits {

    @EJB
    SlotLoop slotLoop;

    @Override
    public boolean put(String name, LimitSpec spec) throws GateException {
        if (!LimitName.isValid(name)) {
            throw new GateException("limit name must be 1-64 of [A-Za-z0-9._-]: '" + name + "'");
        }
        try {
            LimitOptions options = new LimitOptions(spec.minInterval(),
                    spec.moreRules().stream().map(r -> new Pace(r.calls(), r.window())).toList(),
                    new CoolDownLadder(spec.coolDownLadder(), spec.retryFloor(), spec.stepDownAfter()));
            return slotLoop.engine().putLimit(name, new Pace(spec.calls(), spec.window()), options);
        } catch (IllegalArgumentException e) {
            throw new GateException("limit '" + name + "': " + e.getMessage());
        }
    }
}
