namespace cosimo::orchestrator {}
