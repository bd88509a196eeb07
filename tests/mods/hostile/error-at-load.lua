-- Hostile: fails while loading.
local answer = 42
error("broken on purpose")
