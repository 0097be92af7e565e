/**
 * The demo's web app: each page hit is a person waiting, so it calls the vendor INTERACTIVE through the gate (the
 * {@code Gate} EJB, injected by its portable JNDI name), and answers with how long it waited in the line.
 */
package dev.gate.demo.web;
