package dev.gate.server;

/** The datasources the provisioned server defines (gate-ear/src/main/wildfly/gate.cli). */
public final class GateDataSource {

    /**
     * The engine's own pool (no JTA), sized by the pool rule ({@code GATE_DB_POOL_MAX}): only the engine borrows its
     * connections, which carry the engine's lock and statement timeouts for their whole session.
     */
    public static final String ENGINE_JNDI = "java:jboss/datasources/GateEngineDS";

    /**
     * Everything else's (JTA): the schema's migration, accounts, Jakarta Batch's job repository and the backfill's
     * tables ({@code GATE_DB_APPS_POOL_MAX}). No session setting of the engine's reaches it.
     */
    public static final String JNDI = "java:jboss/datasources/GateDS";

    private GateDataSource() {
    }
}
