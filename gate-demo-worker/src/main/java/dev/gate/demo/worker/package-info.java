/**
 * The demo's programs outside the server: {@link dev.gate.demo.worker.DemoWorker} (plain Java with gate-client)
 * takes SCHEDULED snapshots of some stores and a FOLLOW_UP call after each that worked;
 * {@link dev.gate.demo.worker.Visitors} are people opening the demo web app's page (INTERACTIVE calls).
 */
package dev.gate.demo.worker;
