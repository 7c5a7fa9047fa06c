SELECT plain(64, :client_id);
