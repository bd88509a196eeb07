-- Keeps about 27 MiB alive in a global, and behaves.
kept = {}
for i = 1, 27 do kept[i] = string.rep(string.char(64 + i), 1024 * 1024) end
