/**
 * The demo's web app: each page hit is a person waiting, so it calls the vendor INTERACTIVE through the gate, by a
 * MicroProfile Rest Client whose provider is the gate's client filter ({@code QuoteGate}): no permit in the page's
 * code. It answers with how long the request waited in the line.
 */
package dev.gate.demo.web;
