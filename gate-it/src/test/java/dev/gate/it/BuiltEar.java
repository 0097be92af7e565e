package dev.gate.it;

import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;

import java.io.File;

/**
 * The gate's EAR as gate-ear built it (failsafe names the file in gate.ear): what every IT deploys, unchanged; and the
 * demo's WARs as their modules built them (demo.vendor.war, demo.web.war), for the ITs that deploy them beside it.
 */
final class BuiltEar {

    private BuiltEar() {
    }

    static EnterpriseArchive read() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, new File(System.getProperty("gate.ear")));
    }

    /** The demo vendor's WAR ({@code /demo-vendor}). */
    static WebArchive demoVendor() {
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File(System.getProperty("demo.vendor.war")));
    }

    /** The demo web app's WAR ({@code /demo-web}). */
    static WebArchive demoWeb() {
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File(System.getProperty("demo.web.war")));
    }
}
