package dev.gate.ejb;

/** The datasource the provisioned server defines (gate-ear/src/main/wildfly/gate.cli). */
public final class GateDataSource {

    public static final String JNDI = "java:jboss/datasources/GateDS";

    private GateDataSource() {
    }
}
