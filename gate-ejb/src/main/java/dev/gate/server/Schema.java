package dev.gate.server;

import dev.gate.engine.SchemaUpdate;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

import javax.sql.DataSource;
import java.util.logging.Logger;

/**
 * Brings the schema up to date at deployment, before anything else touches the database. The changelog (module
 * gate-db, in the EAR's lib) is the schema's only owner; Liquibase's lock table serialises concurrent deployments and
 * a second deployment finds nothing to do.
 */
@Singleton
@Startup
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // Liquibase commits itself (else IJ031019)
public class Schema {

    private static final Logger LOG = Logger.getLogger(Schema.class.getName());

    @Resource(lookup = GateDataSource.JNDI)
    DataSource dataSource;

    @PostConstruct
    void migrate() {
        try {
            int applied = SchemaUpdate.apply(dataSource);
            LOG.info(() -> applied == 0 ? "gate schema is up to date"
                    : "gate schema updated: " + applied + " change sets applied");
        } catch (Exception e) {
            throw new IllegalStateException("gate could not bring its schema up to date: " + e.getMessage(), e);
        }
    }
}
