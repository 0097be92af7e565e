package dev.gate.it;

import dev.gate.api.GateException;
import dev.gate.api.GateLimits;
import dev.gate.api.LimitSpec;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RunAs;
import jakarta.ejb.EJB;
import jakarta.ejb.Stateless;

/** How an application beside the gate declares limits: from a component that runs as operator. */
@Stateless
@PermitAll // its own callers are the application's; the gate checks the role it runs as
@RunAs("operator")
public class AsOperator {

    @EJB(lookup = GateLimits.JNDI_NAME)
    GateLimits limits;

    public boolean put(String name, LimitSpec spec) throws GateException {
        return limits.put(name, spec);
    }
}
