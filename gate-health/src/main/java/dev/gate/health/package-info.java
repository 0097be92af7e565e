/**
 * The gate's MicroProfile Health checks, served by the server on its management port ({@code /health/ready}). They
 * live in the EAR's lib: WildFly 39 collects an EAR's checks only where its health extension's bean manager sees
 * them, and checks in the EJB module or the WAR were not seen. The check reaches the gate through a local EJB view
 * ({@link dev.gate.health.CallsPaused}) that the application boundary implements.
 */
package dev.gate.health;
