"""Document matching (notebook 05): is a relation (same event, cites, plagiarises) true of two documents? One pair
harness (data -> pair inputs -> classifier -> metrics -> report) that notebooks 09-11 plug other models into."""
