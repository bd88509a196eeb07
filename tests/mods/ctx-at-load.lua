-- Uses ctx at the top level of the file, where there is no game yet.
local start = 0
start = ctx:depth(1)
