SELECT blocks(1000, :client_id);
