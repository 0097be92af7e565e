package dev.gate.api;

/**
 * The operator's side of the gate, for deployments on the same server:
 * {@code @EJB(lookup = GateLimits.JNDI_NAME) GateLimits limits;}, called from a component that runs as
 * {@code operator} (e.g. a {@code @Stateless @RunAs("operator")} bean); any other caller gets
 * {@code EJBAccessException}. Over HTTP the same is {@code PUT /limits/{name}} (role operator).
 */
public interface GateLimits {

    String JNDI_NAME = "java:global/gate/gate-ejb/GateLimitsBean!dev.gate.api.GateLimits";

    /**
     * Creates or changes a limit; true when it was created. A change takes effect at the next slot, never as a burst.
     */
    boolean put(String name, LimitSpec spec) throws GateException;
}
