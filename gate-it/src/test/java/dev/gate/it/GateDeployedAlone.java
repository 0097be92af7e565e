package dev.gate.it;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The gate's EAR deployed alone on the provisioned WildFly, and a subclass's tests its clients from outside (HTTP, the
 * Java client, the database): nothing of the test goes into the server. Arquillian finds this static deployment in
 * the superclass (it reads every class of the hierarchy), and JUnit the extension (inherited). A test class that
 * deploys more (DemoIT's WARs, GateBesideIT's application) declares its own deployments and does not extend this one:
 * Arquillian would add this deployment to them.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
abstract class GateDeployedAlone {

    @Deployment(testable = false)
    static EnterpriseArchive gateEar() {
        return BuiltEar.read();
    }
}
