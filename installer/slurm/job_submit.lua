--[[
Tessera's job_submit gate for Slurm (job_submit/lua). Install it as job_submit.lua in the directory
of slurm.conf and set JobSubmitPlugins=lua.

Tessera decides where GPU jobs run and Slurm runs them: Tessera submits its own jobs held, pins
them to the nodes it chose (scontrol update ReqNodeList=...) and releases them. A job submitted to
Slurm directly would let Slurm's own scheduler place it behind Tessera's back, so every job whose
comment does not start with "tessera:" is held (priority 0, Reason=JobHeldUser) until Tessera
adopts it (pins and releases it). Jobs Tessera submits carry --comment=tessera:<id> and pass.
--]]

local TAG = "tessera:"

local function tagged(comment)
  return comment ~= nil and string.sub(comment, 1, string.len(TAG)) == TAG
end

function slurm_job_submit(job_desc, part_list, submit_uid)
  if not tagged(job_desc.comment) then
    job_desc.priority = 0
    slurm.log_user("tessera: job held until Tessera places it (submit it with Tessera, or ask an operator to release it)")
  end
  return slurm.SUCCESS
end

-- Modifications (pin, release, priority) are Tessera's own operations: never refuse them here.
function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
  return slurm.SUCCESS
end

return slurm.SUCCESS
