--liquibase formatted sql

--changeset gate:013-job-repository
--comment: JBeret's JDBC job repository (the batch jobs' instances, executions and checkpoints), as jberet-core 3.1.0's sql/jberet-postgresql.ddl has it. Kept here so that the schema has one owner; JBeret finds the tables and creates nothing (IF NOT EXISTS: a server that reached the database first may have made them).
CREATE TABLE IF NOT EXISTS job_instance (
    jobinstanceid   bigserial NOT NULL PRIMARY KEY,
    version         integer,
    jobname         varchar(512),
    applicationname varchar(512)
);
CREATE TABLE IF NOT EXISTS job_execution (
    jobexecutionid  bigserial NOT NULL PRIMARY KEY,
    jobinstanceid   bigint    NOT NULL,
    version         integer,
    createtime      timestamptz,
    starttime       timestamptz,
    endtime         timestamptz,
    lastupdatedtime timestamptz,
    batchstatus     varchar(30),
    exitstatus      varchar(512),
    jobparameters   varchar(3000),
    restartposition varchar(255),
    CONSTRAINT fk_job_execution_job_instance FOREIGN KEY (jobinstanceid) REFERENCES job_instance (jobinstanceid) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS step_execution (
    stepexecutionid      bigserial NOT NULL PRIMARY KEY,
    jobexecutionid       bigint    NOT NULL,
    version              integer,
    stepname             varchar(255),
    starttime            timestamptz,
    endtime              timestamptz,
    batchstatus          varchar(30),
    exitstatus           varchar(512),
    executionexception   varchar(2048),
    persistentuserdata   bytea,
    readcount            integer,
    writecount           integer,
    commitcount          integer,
    rollbackcount        integer,
    readskipcount        integer,
    processskipcount     integer,
    filtercount          integer,
    writeskipcount       integer,
    readercheckpointinfo bytea,
    writercheckpointinfo bytea,
    CONSTRAINT fk_step_exe_job_exe FOREIGN KEY (jobexecutionid) REFERENCES job_execution (jobexecutionid) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS partition_execution (
    partitionexecutionid integer NOT NULL,
    stepexecutionid      bigint  NOT NULL,
    version              integer,
    batchstatus          varchar(30),
    exitstatus           varchar(512),
    executionexception   varchar(2048),
    persistentuserdata   bytea,
    readercheckpointinfo bytea,
    writercheckpointinfo bytea,
    PRIMARY KEY (partitionexecutionid, stepexecutionid),
    CONSTRAINT fk_partition_exe_step_exe FOREIGN KEY (stepexecutionid) REFERENCES step_execution (stepexecutionid) ON DELETE CASCADE
);
--rollback DROP TABLE partition_execution; DROP TABLE step_execution; DROP TABLE job_execution; DROP TABLE job_instance;

--changeset gate:013-backfill-result
--comment: what the backfill-history job fetched, one row per job instance, symbol and day, written with the job's checkpoint.
CREATE TABLE gate_backfill_result (
    job_instance_id bigint      NOT NULL REFERENCES job_instance (jobinstanceid) ON DELETE CASCADE,
    symbol          varchar(32) NOT NULL,
    day             date        NOT NULL,
    status          integer     NOT NULL,
    body            text,
    fetched_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (job_instance_id, symbol, day)
);
-- a running job's rate: its results of the last minute
CREATE INDEX gate_backfill_result_recent ON gate_backfill_result (job_instance_id, fetched_at);
--rollback DROP TABLE gate_backfill_result;

--changeset gate:013-backfill-fetch
--comment: the vendor's answers fetched but not yet written with a checkpoint: kept at once, in their own transaction, so that a chunk cut by a stop, a failure or a restart is not fetched again when it is re-read; the writer moves them to gate_backfill_result.
CREATE TABLE gate_backfill_fetch (
    job_instance_id bigint      NOT NULL REFERENCES job_instance (jobinstanceid) ON DELETE CASCADE,
    symbol          varchar(32) NOT NULL,
    day             date        NOT NULL,
    status          integer     NOT NULL,
    body            text,
    fetched_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (job_instance_id, symbol, day)
);
--rollback DROP TABLE gate_backfill_fetch;
