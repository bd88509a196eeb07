-- Keeps about 25 MiB alive in a global, and behaves.
kept = {}
for i = 1, 25 do kept[i] = string.rep(string.char(96 + i), 1024 * 1024) end
