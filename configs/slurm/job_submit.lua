-- bbfs: a job whose #BB lines the burst buffer's hooks would refuse is refused at sbatch, with the
-- same message (file, line and key), instead of failing on its nodes. A job whose script has
-- "#BB" gets MARK in its comment, which the hooks' Prolog sees (SLURM_JOB_COMMENT): with
-- BB_SUBMIT_MARK=on in bb-slurm.env a job without it costs the hooks nothing, not even a look at
-- its script. A script without "#BB" costs nothing here either. slurm.conf:
-- JobSubmitPlugins=lua, with this file as job_submit.lua beside slurm.conf. BBCTL is where the
-- package put bbctl.
local BBCTL = "/usr/bin/bbctl"
local MARK = "[#BB]"

local function mark(job_desc)
  local c = job_desc.comment
  if c == nil or c == "" then
    job_desc.comment = MARK
  elseif not string.find(c, MARK, 1, true) then
    job_desc.comment = c .. " " .. MARK
  end
  return slurm.SUCCESS
end

function slurm_job_submit(job_desc, part_list, submit_uid)
  local script = job_desc.script
  if script == nil or not string.find(script, "#BB", 1, true) then
    return slurm.SUCCESS
  end
  local probe = io.open(BBCTL, "r")
  if probe == nil then
    return mark(job_desc) -- no bbctl here: the hooks check on the nodes
  end
  probe:close()
  -- The script goes through a file of our own naming: nothing the user wrote reaches a shell.
  local path = os.tmpname()
  local f = io.open(path, "w")
  if f == nil then
    return mark(job_desc) -- cannot check here: the hooks check on the nodes
  end
  f:write(script)
  f:close()
  local p = io.popen(BBCTL .. " bb check --script " .. path .. " 2>&1")
  local out = p:read("*a")
  p:close() -- Lua 5.1 gives no exit status: bbctl says "#BB: ok" when the lines are good
  os.remove(path)
  if out == nil or out == "" or string.find(out, "#BB: ok", 1, true) then
    return mark(job_desc)
  end
  slurm.log_user("burst buffer: %s", (string.gsub(out, "%s+$", "")))
  return slurm.ERROR
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
  return slurm.SUCCESS
end

return slurm.SUCCESS
