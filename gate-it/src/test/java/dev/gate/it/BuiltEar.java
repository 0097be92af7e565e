package dev.gate.it;

import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;

import java.io.File;

/** The gate's EAR as gate-ear built it (failsafe names the file in gate.ear): what every IT deploys, unchanged. */
final class BuiltEar {

    private BuiltEar() {
    }

    static EnterpriseArchive read() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, new File(System.getProperty("gate.ear")));
    }
}
