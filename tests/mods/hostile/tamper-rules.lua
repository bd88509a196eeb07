-- Hostile: change the rules table.
diving.rules.max_depth = 1
