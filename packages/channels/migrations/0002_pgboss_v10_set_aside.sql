-- pg-boss 11 rewrote its schema, and pg-boss 12 (Parley's job queue since issue 18) migrates only from
-- pg-boss 11's (schema version 25 on). A `pgboss` schema made by pg-boss 10 (version 24 or older) is
-- set aside here, before any process starts pg-boss 12: pg-boss 12 then installs a fresh `pgboss` when
-- the worker starts, and the worker carries the jobs still to run over into it and drops pgboss_v10
-- (apps/worker/src/pgBossV10CarryOver.ts). Nothing happens on a database without pg-boss 10's schema.
do $$
declare
  found int;
begin
  if to_regclass('pgboss.version') is null then
    return;
  end if;
  -- Dynamic: a static query would be planned, and fail, where the table does not exist.
  execute 'select max(version) from pgboss.version' into found;
  if found < 25 then
    alter schema pgboss rename to pgboss_v10;
  end if;
end
$$;
