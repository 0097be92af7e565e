package dev.gate;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.gate.api.CallClass;
import dev.gate.api.CallState;
import jakarta.persistence.PersistenceContext;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The server's dependency rule, as the README writes it (a reader relies on it to find where a thing is decided, and
 * on the adapters being thin): adapters (web, EJB views, batch) reach the line only through {@code app}; {@code app}
 * through {@code server} and {@code engine}; only the engine uses {@code store} and {@code wait}; the store speaks in
 * its own records and the domain's, never in the published API's beans; the rules and the published API
 * ({@code api}) depend on nothing; and no two packages depend on each other. Read from the modules' compiled classes
 * (gate-ejb, gate-batch, gate-health, db and this module).
 */
@AnalyzeClasses(packages = "dev.gate", importOptions = ImportOption.DoNotIncludeTests.class)
class LayersTest {

    static final String WEB = "dev.gate.web..";
    static final String EJB_VIEWS = "dev.gate.ejb..";
    static final String BATCH = "dev.gate.batch..";

    @ArchTest
    static final ArchRule layers = layeredArchitecture().consideringOnlyDependenciesInLayers()
            .layer("adapters").definedBy(WEB, EJB_VIEWS, BATCH)
            .layer("app").definedBy("dev.gate.app..")
            .layer("server").definedBy("dev.gate.server..")
            .layer("engine").definedBy("dev.gate.engine..")
            .layer("store").definedBy("dev.gate.store..")
            .layer("wait").definedBy("dev.gate.wait..")
            .layer("domain").definedBy("dev.gate.domain..")
            .layer("rules").definedBy("dev.gate.rules..")
            .layer("schema").definedBy("dev.gate.db..")
            .layer("readiness").definedBy("dev.gate.health..")
            .layer("api").definedBy("dev.gate.api..")
            .whereLayer("adapters").mayNotBeAccessedByAnyLayer()
            .whereLayer("app").mayOnlyBeAccessedByLayers("adapters")
            .whereLayer("server").mayOnlyBeAccessedByLayers("app")
            .whereLayer("engine").mayOnlyBeAccessedByLayers("app", "server")
            .whereLayer("store").mayOnlyBeAccessedByLayers("engine")
            .whereLayer("wait").mayOnlyBeAccessedByLayers("engine")
            .whereLayer("domain").mayOnlyBeAccessedByLayers("app", "server", "engine", "store", "wait")
            .whereLayer("rules").mayOnlyBeAccessedByLayers("app", "server", "engine", "store", "domain")
            .whereLayer("schema").mayOnlyBeAccessedByLayers("engine")
            .whereLayer("readiness").mayOnlyBeAccessedByLayers("app") // the port the app implements
            .because("adapters reach the line only through app; only the engine touches the store");

    /**
     * The published API is the contract: it names nothing of the server (the vendor's headers are read by a library
     * of their own, gate-headers, that gate-client shares).
     */
    @ArchTest
    static final ArchRule apiStandsAlone = classes().that().resideInAPackage("dev.gate.api..")
            .should().onlyDependOnClassesThat(resideInAnyPackage("dev.gate.api..", "dev.gate.headers..")
                    .or(DescribedPredicate.not(resideInAPackage("dev.gate.."))));

    /** The rules name nothing of the server, nor of the API: they are the spec, in plain Java. */
    @ArchTest
    static final ArchRule rulesStandAlone = classes().that().resideInAPackage("dev.gate.rules..")
            .should().onlyDependOnClassesThat(resideInAPackage("dev.gate.rules..")
                    .or(DescribedPredicate.not(resideInAPackage("dev.gate.."))));

    /** The store and the domain use, of the API, only the two words they persist: a call's class and its state. */
    @ArchTest
    static final ArchRule storeSpeaksInItsOwnRecords = noClasses()
            .that().resideInAnyPackage("dev.gate.store..", "dev.gate.domain..")
            .should().dependOnClassesThat(resideInAPackage("dev.gate.api..")
                    .and(DescribedPredicate.not(belongToAnyOf(CallClass.class, CallState.class))))
            .because("the store returns store records, never API beans; the engine tells them as the API's");

    /** One adapter never reaches into another (the pages use the jobs through app.Backfills). */
    @ArchTest
    static final ArchRule adaptersApart = noClasses().that().resideInAPackage(WEB)
            .should().dependOnClassesThat(resideInAPackage(BATCH).or(resideInAPackage(EJB_VIEWS)));

    @ArchTest
    static final ArchRule batchApart = noClasses().that().resideInAPackage(BATCH)
            .should().dependOnClassesThat(resideInAPackage(WEB).or(resideInAPackage(EJB_VIEWS)));

    @ArchTest
    static final ArchRule viewsApart = noClasses().that().resideInAPackage(EJB_VIEWS)
            .should().dependOnClassesThat(resideInAPackage(WEB).or(resideInAPackage(BATCH)));

    /**
     * Persistence, one way each (docs/inside.md): SQL is sent by the store, and by the batch module over its own tables;
     * the engine's listener holds a connection of its own (LISTEN).
     */
    @ArchTest
    static final ArchRule sqlFromTheStore = noClasses()
            .that().resideInAnyPackage("dev.gate.app..", "dev.gate.server..", "dev.gate.engine..", "dev.gate.wait..",
                    "dev.gate.domain..", "dev.gate.rules..", "dev.gate.api..", "dev.gate.health..", WEB, EJB_VIEWS)
            .and().doNotHaveFullyQualifiedName("dev.gate.engine.GrantListener")
            .should().dependOnClassesThat(assignableTo(java.sql.Statement.class))
            .because("statements of the line are the store's, where locks and round trips are decided");

    /** An EntityManager is the store's (the engine's unit) and the domain's, and app.Accounts' (the container's). */
    @ArchTest
    static final ArchRule entityManagersInTheStore = noClasses()
            .that().resideOutsideOfPackages("dev.gate.store..", "dev.gate.domain..")
            .and().doNotHaveFullyQualifiedName("dev.gate.app.Accounts")
            .should().dependOnClassesThat(belongToAnyOf(jakarta.persistence.EntityManager.class,
                    jakarta.persistence.EntityManagerFactory.class));

    /** The container's persistence unit serves the HTTP accounts alone. */
    @ArchTest
    static final ArchRule containerUnitForAccounts = fields().that().areAnnotatedWith(PersistenceContext.class)
            .should().beDeclaredIn("dev.gate.app.Accounts");

    /** Every package of the server, each its own slice: no two depend on each other. */
    @ArchTest
    static final ArchRule noCycles = slices().matching("dev.gate.(**)").should().beFreeOfCycles();

}
