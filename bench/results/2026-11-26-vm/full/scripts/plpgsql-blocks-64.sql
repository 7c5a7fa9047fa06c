SELECT blocks(64, :client_id);
