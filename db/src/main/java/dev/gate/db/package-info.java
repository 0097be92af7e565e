/**
 * The schema's only owner: the Liquibase changelog ({@code dev/gate/db/changelog.xml}) and {@link
 * dev.gate.db.Migrations}, the one way it is applied (by the server at deployment, by every test and benchmark).
 */
package dev.gate.db;
